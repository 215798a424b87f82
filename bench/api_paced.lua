-- wrk script for bench/api_bench.sh: paced requests, an optional Bearer token, and one summary
-- line the shell script parses.
--
-- Environment:
--   BENCH_DELAY_MS  mean wait of each connection between its requests (default 100); each wait is
--                   drawn uniformly from [0.5, 1.5] x the mean, so connections do not move in
--                   lockstep. C connections then send about C * 1000 / (delay + latency) req/s.
--   BENCH_TOKEN     when set, sent as "Authorization: Bearer <token>".
--
-- Prints: BENCH requests=N seconds=S rps=R p50_ms=A p99_ms=B max_ms=C mean_ms=M non2xx=K errors=E

local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "100") or 100
local token = os.getenv("BENCH_TOKEN")
if token ~= nil and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
  math.randomseed(1000 + (id or 0))
end

function delay()
  return math.floor(delay_ms * (0.5 + math.random()))
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "BENCH requests=%d seconds=%.2f rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f mean_ms=%.2f " ..
      "non2xx=%d errors=%d\n",
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, latency.mean / 1000, bad,
    e.connect + e.read + e.write + e.timeout))
end
