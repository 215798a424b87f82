-- Which UFM each fabric's leader acts on: one UFM, one fabric. A leader that finds an older claim
-- on its UFM by another fabric whose leader is alive refuses to act (ufm_claim.h): two fabric
-- names on one UFM would double every limit and file each fault twice.
CREATE TABLE fabric_ufm (
  fabric     text        PRIMARY KEY,
  ufm_url    text        NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()  -- when this fabric first claimed this UFM
);
CREATE INDEX fabric_ufm_by_url ON fabric_ufm (ufm_url);
