// Browser half of the dashboard end-to-end test; tests/dashboard/run.sh sets up the fabric,
// database and service and then runs this with:
//   BASE_URL   the service, e.g. http://127.0.0.1:PORT
//   TICKET_ID  a ticket whose port the service has disabled (state port_disabled or ticket_only)
//   OUT_DIR    where screenshots go
//   CHROMIUM   the Chromium executable (default /usr/bin/chromium)
//   RULES_DIR  the rules folder the service reads (a copy): the reload banner check edits it
import { chromium } from 'playwright-core';
import fs, { mkdirSync } from 'node:fs';
import path from 'node:path';

const BASE = process.env.BASE_URL;
const ID = process.env.TICKET_ID;
const OUT = process.env.OUT_DIR || '.';
const STEP_MS = 20_000;
if (!BASE || !ID) {
  console.error('e2e.mjs: BASE_URL and TICKET_ID must be set');
  process.exit(2);
}
mkdirSync(OUT, { recursive: true });

let step = 'start';
const log = (msg) => console.log(`e2e_dashboard: ${msg}`);
function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
async function apiTicket(id) {
  const r = await fetch(`${BASE}/api/tickets/${id}`);
  check(r.ok, `GET /api/tickets/${id} returned HTTP ${r.status}`);
  return r.json();
}
async function waitFor(what, fn, timeoutMs) {
  const until = Date.now() + timeoutMs;
  let last;
  while (Date.now() < until) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}
const stateText = (s) => String(s).replace(/_/g, ' ');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  timeout: 60_000,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const pageErrors = [];
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(STEP_MS);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // (The last step provokes a 404 on purpose; its console message is expected.)
  page.on('console', (m) => {
    if (m.type() === 'error' && step !== 'error display') console.log(`browser console: ${m.text()}`);
  });

  const before = await apiTicket(ID);
  const ends = (before.ports || []).slice(0, 2);
  check(ends.length === 2, `ticket ${ID} has ${ends.length} port ends in the API, expected 2`);
  for (const [i, p] of ends.entries()) {
    check(p.system_name && p.label, `API ticket ${ID} end ${i} lacks system_name/label: ${JSON.stringify(p)}`);
  }

  // --- intake alert banner (run.sh made UFM lose events) ---
  step = 'intake alert';
  const sre = (d) => (d.type() === 'prompt' ? d.accept('E2E SRE') : d.dismiss());
  page.on('dialog', sre);
  await page.goto(`${BASE}/`);
  await page.getByTestId('alerts').waitFor();
  const bannerText = await page.getByTestId('alerts').innerText();
  check(/event id gap/.test(bannerText) && /were gone from UFM/.test(bannerText),
    `the alert banner shows "${bannerText}"`);
  await page.screenshot({ path: path.join(OUT, 'dashboard-alert.png') });
  const alertsBefore = (await (await fetch(`${BASE}/api/alerts`)).json()).alerts;
  check(alertsBefore.length >= 1, 'GET /api/alerts lists no alert');
  for (const a of alertsBefore) {
    await page.getByTestId(`alert-dismiss-${a.id}`).click();
    await page.getByTestId(`alert-${a.id}`).waitFor({ state: 'detached' });
  }
  await page.getByTestId('alerts').waitFor({ state: 'hidden' });
  const alertsAfter = (await (await fetch(`${BASE}/api/alerts`)).json()).alerts;
  check(alertsAfter.length === 0, `alerts still active after dismissing: ${JSON.stringify(alertsAfter)}`);
  page.off('dialog', sre);
  log(`alert banner shown and dismissed (${alertsBefore.length} alert(s))`);

  // --- a broken rules change: the banner says so, the old rules stay; mended, it goes away ---
  step = 'rules reload banner';
  const hashBefore = (await (await fetch(`${BASE}/api/rules`)).json()).hash;
  const broken = path.join(process.env.RULES_DIR, 'zz_change.yaml');
  fs.writeFileSync(broken, 'rules:\n  - name: width\n    match: {event_id: 130}\n    action: explode\n');
  await page.goto(`${BASE}/`);
  await page.getByTestId('alerts').waitFor({ timeout: 20000 });
  const reloadText = await page.getByTestId('alerts').innerText();
  check(/rules reload/i.test(reloadText) && /zz_change\.yaml:4/.test(reloadText),
    `the rules reload banner shows "${reloadText}"`);
  await page.screenshot({ path: path.join(OUT, 'dashboard-rules-reload.png') });
  const hashKept = (await (await fetch(`${BASE}/api/rules`)).json()).hash;
  check(hashKept === hashBefore, `a broken change replaced the rules: ${hashBefore} -> ${hashKept}`);
  fs.writeFileSync(broken, 'rules:\n  - name: width\n    match: {event_id: 130}\n    action: ticket_only\n    mode: shadow\n');
  for (let i = 0; i < 40; i++) {
    const alerts = (await (await fetch(`${BASE}/api/alerts`)).json()).alerts;
    if (!alerts.some((a) => a.kind === 'rules_reload')) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.goto(`${BASE}/`);
  await page.getByTestId('alerts').waitFor({ state: 'hidden', timeout: 20000 });
  const hashAfter = (await (await fetch(`${BASE}/api/rules`)).json()).hash;
  check(hashAfter !== hashBefore, 'the mended change was not taken');
  fs.unlinkSync(broken);
  log(`rules reload banner shown for a broken change and gone once mended (${hashBefore} -> ${hashAfter})`);

  // --- ticket list ---
  step = 'ticket list';
  await page.goto(`${BASE}/`);
  const row = page.getByTestId(`ticket-row-${ID}`);
  await row.waitFor();
  const rowText = await row.innerText();
  for (const p of ends) {
    check(rowText.includes(p.system_name), `row of ticket ${ID} does not show system name "${p.system_name}": ${rowText}`);
    check(rowText.includes(p.label), `row of ticket ${ID} does not show port label "${p.label}": ${rowText}`);
  }
  const rowBadge = (await row.getByTestId('state-badge').innerText()).trim();
  check(rowBadge === stateText(before.state), `row badge says "${rowBadge}", API says "${before.state}"`);
  check(await page.getByTestId('ticket-table').isVisible(), 'ticket table not visible');
  await page.screenshot({ path: path.join(OUT, 'dashboard.png'), fullPage: true });
  log(`list shows ticket ${ID}: ${rowText.replace(/\s+/g, ' ').trim()}`);

  // --- ticket page ---
  step = 'ticket page';
  await row.getByTestId('ticket-link').click();
  await page.waitForURL(new RegExp(`/tickets/${ID}$`));
  await page.getByTestId('timeline-entry').first().waitFor();
  const entriesBefore = await page.getByTestId('timeline-entry').count();
  check(entriesBefore >= 1, 'timeline is empty');
  for (const [i, p] of ends.entries()) {
    const panel = page.getByTestId(i === 0 ? 'end-a' : 'end-b');
    const text = await panel.innerText();
    check(text.includes(p.system_name) && text.includes(p.label),
      `ticket page end ${i} does not show "${p.system_name}" "${p.label}": ${text}`);
  }
  const button = page.getByTestId('repaired-button');
  check(await button.isEnabled(), `"Mark repaired" is disabled in state ${before.state}`);
  log(`ticket page shows both ends and ${entriesBefore} timeline entries`);

  // The same page also answers at the hash route.
  step = 'hash route';
  await page.goto(`${BASE}/#/tickets/${ID}`);
  await page.getByTestId('timeline-entry').first().waitFor();
  await page.goto(`${BASE}/tickets/${ID}`);
  await page.getByTestId('timeline-entry').first().waitFor();

  // --- mark repaired ---
  step = 'mark repaired';
  const prompts = [];
  page.on('dialog', async (d) => {
    prompts.push(d.message());
    if (d.type() !== 'prompt') return d.dismiss();
    return d.accept(prompts.length === 1 ? 'E2E Technician' : 'replaced cable (e2e test)');
  });
  const respPromise = page.waitForResponse((r) => r.url().endsWith(`/api/tickets/${ID}/repaired`) &&
    r.request().method() === 'POST');
  await button.click();
  const resp = await respPromise;
  check(resp.status() === 200, `POST repaired returned HTTP ${resp.status()}: ${await resp.text()}`);
  check(prompts.length === 2, `expected 2 prompts (name, note), saw ${prompts.length}: ${JSON.stringify(prompts)}`);
  await page.getByTestId('notice').waitFor();
  const after = await apiTicket(ID);
  check(['repair_reported', 'verifying', 'closed'].includes(after.state),
    `after "Mark repaired" the ticket is "${after.state}", expected repair_reported, verifying or closed`);
  const reported = (after.events || []).some((e) => JSON.stringify(e).includes('E2E Technician'));
  check(reported, `no ticket event names the technician: ${JSON.stringify(after.events)}`);
  log(`ticket ${ID} is ${after.state} after "Mark repaired"`);

  // The link was fixed in the simulator, so the soak should pass and the ticket close.
  step = 'verification';
  const closed = await waitFor(`ticket ${ID} to close`, async () => {
    const t = await apiTicket(ID);
    check(!['port_disabled', 'escalated'].includes(t.state),
      `ticket ${ID} went back to ${t.state} after the repair: ${JSON.stringify(t.events)}`);
    return t.state === 'closed' ? t : null;
  }, 90_000);
  await page.reload();
  await page.getByTestId('timeline-entry').first().waitFor();
  await waitFor('the page to show "closed"', async () =>
    (await page.locator('#t-badge').innerText()).trim() === 'closed', STEP_MS);
  const entriesAfter = await page.getByTestId('timeline-entry').count();
  check(entriesAfter > entriesBefore, `timeline did not grow (${entriesBefore} -> ${entriesAfter})`);
  check(await button.isDisabled(), '"Mark repaired" is still enabled on a closed ticket');
  await page.screenshot({ path: path.join(OUT, 'dashboard-ticket.png'), fullPage: true });
  log(`ticket ${ID} closed at ${closed.closed_at}; timeline has ${entriesAfter} entries`);

  // --- list filters ---
  step = 'filters';
  await page.getByTestId('back-link').click();
  await page.getByTestId('filter-closed').click();
  await page.getByTestId(`ticket-row-${ID}`).waitFor();
  await page.getByTestId('filter-open').click();
  await page.getByTestId(`ticket-row-${ID}`).waitFor({ state: 'detached' });

  // --- errors are shown ---
  step = 'error display';
  await page.goto(`${BASE}/tickets/999999999`);
  await page.getByTestId('error').waitFor();
  const errText = await page.getByTestId('error').innerText();
  check(/404/.test(errText), `unknown ticket shows "${errText}", expected an HTTP 404 error`);

  check(pageErrors.length === 0, `JavaScript errors on the page: ${pageErrors.join('; ')}`);
  log('browser checks passed');
} catch (e) {
  console.error(`e2e_dashboard: FAIL in step "${step}": ${e.message}`);
  if (page) await page.screenshot({ path: path.join(OUT, 'failure.png'), fullPage: true }).catch(() => {});
  await browser.close().catch(() => {});
  process.exit(1);
}
await browser.close();
