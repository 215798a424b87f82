// Browser half of the dashboard end-to-end test; tests/dashboard/run.sh sets up the fabric,
// database and service and then runs this with:
//   BASE_URL   the service, e.g. http://127.0.0.1:PORT
//   TICKET_ID  a ticket whose port the service has disabled (state port_disabled)
//   OUT_DIR    where screenshots go
//   CHROMIUM   the Chromium executable (default /usr/bin/chromium)
//   RULES_DIR  the rules folder the service reads (a copy): the reload banner check edits it
//   SIM_URL    the simulator (the repeat-offender check breaks the repaired link again)
//   FAULT_PORT the switch-side port of the ticket's link
//   DB_URL     libpq connection string of the service's database (psql trips the breaker)
//   FABRIC     the fabric name in the service's config
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs, { mkdirSync } from 'node:fs';
import path from 'node:path';

const BASE = process.env.BASE_URL;
const ID = process.env.TICKET_ID;
const OUT = process.env.OUT_DIR || '.';
const SIM = process.env.SIM_URL;
const FAULT_PORT = process.env.FAULT_PORT;
const DB_URL = process.env.DB_URL;
const FABRIC = process.env.FABRIC;
const STEP_MS = 20_000;
if (!BASE || !ID || !SIM || !FAULT_PORT || !DB_URL || !FABRIC) {
  console.error('e2e.mjs: BASE_URL, TICKET_ID, SIM_URL, FAULT_PORT, DB_URL and FABRIC must be set');
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
// The state badge's words: a port_disabled ticket says whether its port is disabled or isolated.
const stateText = (t) => (t.state === 'port_disabled' && t.method === 'isolate'
  ? 'port isolated' : String(t.state).replace(/_/g, ' '));
const squash = (s) => String(s).replace(/\s+/g, ' ').trim();
// Runs one SQL statement in the service's database; returns what it prints (tuples only).
const sqlText = (v) => `'${String(v).replace(/'/g, "''")}'`;
function psql(sql) {
  return execFileSync('psql', [DB_URL, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', sql],
    { encoding: 'utf8', timeout: 20_000 }).trim();
}
async function apiJson(p, init) {
  const r = await fetch(`${BASE}${p}`, init);
  check(r.ok, `${init && init.method ? init.method : 'GET'} ${p} returned HTTP ${r.status}: ${await r.clone().text()}`);
  return r.json();
}

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
    if (m.type() === 'error' && !['error display', 'breaker error'].includes(step)) {
      console.log(`browser console: ${m.text()}`);
    }
  });

  const before = await apiTicket(ID);
  check(before.state === 'port_disabled', `ticket ${ID} is ${before.state}, expected port_disabled`);
  check(typeof before.explanation === 'string' && before.explanation.trim().length > 20,
    `ticket ${ID} has no explanation in the API: ${JSON.stringify(before.explanation)}`);
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
  check(rowBadge === stateText(before), `row badge says "${rowBadge}", API says "${before.state}" (${before.method})`);
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

  // --- the evidence in plain words, and how the port was taken out ---
  step = 'evidence';
  await page.getByTestId('evidence').waitFor();
  const evidence = await page.getByTestId('evidence-text').innerText();
  check(squash(evidence) === squash(before.explanation),
    `the Evidence section shows "${evidence}", the API explanation is "${before.explanation}"`);
  const summaryText = await page.locator('#t-summary').innerText();
  check(summaryText.includes(`${before.method} (takes the port out by ${before.method === 'isolate' ? 'isolating' : 'disabling'} it in UFM)`),
    `the summary does not show the method "${before.method}": ${summaryText}`);
  log(`Evidence section shows the explanation (${before.explanation.length} characters); method ${before.method}`);

  // The same page also answers at the hash route.
  step = 'hash route';
  await page.goto(`${BASE}/#/tickets/${ID}`);
  await page.getByTestId('timeline-entry').first().waitFor();
  await page.goto(`${BASE}/tickets/${ID}`);
  await page.getByTestId('timeline-entry').first().waitFor();

  // From here on every prompt (who is acting, a note) is answered from `answers`, in order; one
  // with no answer left is dismissed. `prompts` keeps what was asked.
  const prompts = [];
  let answers = [];
  const expectPrompts = (...a) => { answers = a; prompts.length = 0; };
  page.on('dialog', async (d) => {
    prompts.push(d.message());
    if (d.type() !== 'prompt' || answers.length === 0) return d.dismiss();
    return d.accept(answers.shift());
  });
  const repairPosts = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith(`/api/tickets/${ID}/repaired`)) repairPosts.push(r.postData());
  });

  // --- "Mark repaired" needs to know what was done; Other needs a note (checked in the page) ---
  step = 'repair kind required';
  expectPrompts();
  await page.getByTestId('repair-form').waitFor();
  await button.click();
  await page.getByTestId('repair-error').waitFor();
  const noKind = await page.getByTestId('repair-error').innerText();
  check(/choose what was done/i.test(noKind), `with no kind chosen the page says "${noKind}"`);
  await page.getByTestId('repair-kind').selectOption('other');
  await page.getByTestId('repair-note').fill('   ');
  await button.click();
  await page.getByTestId('repair-error').waitFor();
  const noNote = await page.getByTestId('repair-error').innerText();
  check(/note is required/i.test(noNote) && /other/i.test(noNote),
    `"Other" with no note: the page says "${noNote}"`);
  await page.screenshot({ path: path.join(OUT, 'dashboard-repair-refused.png') });
  check(prompts.length === 0, `a refused repair still asked: ${JSON.stringify(prompts)}`);
  check(repairPosts.length === 0, `a refused repair was sent: ${JSON.stringify(repairPosts)}`);
  check((await apiTicket(ID)).state === before.state, 'a refused repair changed the ticket');
  log(`a repair with kind Other and no note is refused in the page: "${noNote}"`);

  // --- mark repaired ---
  step = 'mark repaired';
  await page.getByTestId('repair-kind').selectOption('cable_replaced');
  await page.getByTestId('repair-note').fill('replaced cable (e2e test)');
  check(await page.getByTestId('repair-error').isHidden(), 'the refusal message stayed after choosing a kind');
  expectPrompts('E2E Technician');
  const respPromise = page.waitForResponse((r) => r.url().endsWith(`/api/tickets/${ID}/repaired`) &&
    r.request().method() === 'POST');
  await button.click();
  const resp = await respPromise;
  check(resp.status() === 200, `POST repaired returned HTTP ${resp.status()}: ${await resp.text()}`);
  check(prompts.length === 1, `expected 1 prompt (name), saw ${prompts.length}: ${JSON.stringify(prompts)}`);
  const sent = JSON.parse(repairPosts[repairPosts.length - 1] || '{}');
  check(sent.kind === 'cable_replaced' && sent.note === 'replaced cable (e2e test)' && sent.by === 'E2E Technician',
    `POST repaired sent ${JSON.stringify(sent)}`);
  await page.getByTestId('notice').waitFor();
  const after = await apiTicket(ID);
  check(['repair_reported', 'verifying', 'closed'].includes(after.state),
    `after "Mark repaired" the ticket is "${after.state}", expected repair_reported, verifying or closed`);
  check(after.repair_kind === 'cable_replaced', `the ticket's repair_kind is "${after.repair_kind}"`);
  const reported = (after.events || []).some((e) => JSON.stringify(e).includes('E2E Technician'));
  check(reported, `no ticket event names the technician: ${JSON.stringify(after.events)}`);
  log(`ticket ${ID} is ${after.state} after "Mark repaired" (cable replaced)`);

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
  check(await page.getByTestId('repair-form').isHidden(), 'the repair form is shown on a closed ticket');
  const repairRow = await page.locator('[data-testid="timeline-entry"][data-kind="repair_reported"]').innerText();
  check(/repair reported: cable replaced/.test(repairRow) && repairRow.includes('E2E Technician'),
    `the timeline's repair entry reads "${squash(repairRow)}"`);
  const passedRow = await page.locator('[data-testid="timeline-entry"][data-kind="soak_passed"]').innerText();
  check(/soak passed/.test(passedRow), `the timeline's soak entry reads "${squash(passedRow)}"`);
  const summaryAfter = await page.locator('#t-summary').innerText();
  check(/Repair reported\s+Cable replaced/.test(summaryAfter), `the summary does not show the repair kind: ${summaryAfter}`);
  await page.screenshot({ path: path.join(OUT, 'dashboard-ticket.png'), fullPage: true });
  log(`ticket ${ID} closed at ${closed.closed_at}; timeline has ${entriesAfter} entries`);

  // --- the link breaks again: a repeat offender, held back by a guard (this service acted on it lately) ---
  step = 'repeat offender';
  const fault = await fetch(`${SIM}/sim/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ kind: 'link_down', port: FAULT_PORT }) });
  check(fault.ok, `POST /sim/faults returned HTTP ${fault.status}`);
  const again = await waitFor(`a new ticket on ${FAULT_PORT}`, async () => {
    const list = (await apiJson('/api/tickets?state=open')).tickets;
    return list.find((t) => String(t.id) !== String(ID) && t.link === before.link && t.state !== 'open') || null;
  }, 60_000);
  check(again.repeat_offender === true && again.repeat_count >= 1,
    `the new ticket ${again.id} on the same link is not a repeat offender: ${JSON.stringify(again)}`);
  await page.getByTestId('back-link').click();
  await page.getByTestId('filter-open').click();
  const againRow = page.getByTestId(`ticket-row-${again.id}`);
  await againRow.waitFor();
  const repeatBadge = (await againRow.getByTestId('repeat-badge').innerText()).trim();
  check(repeatBadge === `repeat: ${again.repeat_count} earlier`, `the repeat badge says "${repeatBadge}"`);
  const guardWords = { cooldown: 'cooldown: acted on lately', cap: 'cap reached', switch_cap: 'switch cap reached',
    rate_limit: 'rate limit reached', last_link: "host's last link: drain first" };
  if (again.guard) {
    const shown = (await againRow.getByTestId('ticket-guard').innerText()).trim();
    check(!guardWords[again.guard] || shown === guardWords[again.guard],
      `the guard "${again.guard}" reads "${shown}" in the list`);
  }
  await againRow.getByTestId('ticket-link').click();
  await page.getByTestId('repeat-notice').waitFor();
  const notice = await page.getByTestId('repeat-notice').innerText();
  check(/repeat offender/i.test(notice), `the repeat-offender notice reads "${notice}"`);
  log(`ticket ${again.id} on the same link: "${repeatBadge}", guard "${again.guard}", state ${again.state}`);

  // --- list filters ---
  step = 'filters';
  await page.getByTestId('back-link').click();
  await page.getByTestId('filter-closed').click();
  await page.getByTestId(`ticket-row-${ID}`).waitFor();
  await page.getByTestId('filter-open').click();
  await page.getByTestId(`ticket-row-${ID}`).waitFor({ state: 'detached' });

  // --- circuit breaker: tripped in the database (with a storm ticket), shown as a banner, re-armed ---
  step = 'circuit breaker';
  const stormId = psql(`INSERT INTO tickets (fabric, link_key, port_a, state, rule, reason, guard, explanation)
    VALUES (${sqlText(FABRIC)}, 'storm', '', 'ticket_only', 'link_down', 'test storm', 'breaker',
            'A storm of findings (e2e test).') RETURNING id`);
  check(/^\d+$/.test(stormId), `inserting the storm ticket printed "${stormId}"`);
  psql(`INSERT INTO ticket_events (ticket_id, kind, actor, message, details) VALUES (${stormId}, 'held_back',
    'service', 'held back: rule link_down on an e2e link', '{"rule": "link_down", "link": "e2e"}')`);
  psql(`INSERT INTO breaker (fabric, tripped, tripped_at, reason, ticket_id)
    VALUES (${sqlText(FABRIC)}, true, now(), 'test storm', ${stormId})
    ON CONFLICT (fabric) DO UPDATE SET tripped = true, tripped_at = now(), reason = 'test storm',
      ticket_id = ${stormId}`);
  check((await apiJson('/api/breaker')).tripped === true, 'GET /api/breaker does not say tripped');
  await page.goto(`${BASE}/`);
  const banner = page.getByTestId('breaker-banner');
  await banner.waitFor();
  const bannerText2 = await banner.innerText();
  check(/circuit breaker tripped/i.test(bannerText2) && bannerText2.includes('test storm'),
    `the breaker banner reads "${squash(bannerText2)}"`);
  const stormLink = page.getByTestId('breaker-ticket');
  check((await stormLink.getAttribute('href')).endsWith(`/tickets/${stormId}`),
    `the banner links to "${await stormLink.getAttribute('href')}", not storm ticket ${stormId}`);
  const stormRow = page.getByTestId(`ticket-row-${stormId}`);
  await stormRow.waitFor();
  check((await stormRow.getByTestId('storm-label').innerText()).trim() === 'storm',
    'the storm ticket row does not say "storm"');
  check((await stormRow.getByTestId('ticket-guard').innerText()).trim() === 'breaker',
    'the storm ticket row does not show the guard "breaker"');
  await page.screenshot({ path: path.join(OUT, 'dashboard-breaker.png'), fullPage: true });
  await stormLink.click();
  await page.waitForURL(new RegExp(`/tickets/${stormId}$`));
  await page.getByTestId('storm-panel').waitFor();
  await page.locator('[data-testid="timeline-entry"][data-kind="held_back"]').waitFor();
  check(/held back/.test(await page.locator('[data-testid="timeline-entry"][data-kind="held_back"]').innerText()),
    'the held_back event is not shown as "held back"');
  check(await button.isDisabled(), '"Mark repaired" is enabled on a storm ticket');
  expectPrompts('E2E SRE', 'storm understood (e2e)');
  const rearmPromise = page.waitForResponse((r) => r.url().endsWith('/api/breaker/rearm') &&
    r.request().method() === 'POST');
  await page.getByTestId('breaker-rearm').click();
  const rearm = await rearmPromise;
  check(rearm.status() === 200, `POST /api/breaker/rearm returned HTTP ${rearm.status()}: ${await rearm.text()}`);
  check(prompts.length === 2, `expected 2 prompts (name, note) to re-arm, saw ${JSON.stringify(prompts)}`);
  await banner.waitFor({ state: 'hidden' });
  const rearmed = await apiJson('/api/breaker');
  check(rearmed.tripped === false && rearmed.rearmed_by === 'E2E SRE', `after re-arm GET /api/breaker: ${JSON.stringify(rearmed)}`);
  const stormAfter = await apiTicket(stormId);
  check(stormAfter.state === 'closed' &&
    (stormAfter.events || []).some((e) => e.kind === 'rearmed' && e.message.includes('storm understood (e2e)')),
    `the storm ticket after re-arm: ${JSON.stringify(stormAfter)}`);
  await page.locator('[data-testid="timeline-entry"][data-kind="rearmed"]').waitFor();
  log(`breaker banner shown for storm ticket ${stormId} and gone after "Re-arm"`);

  // A page that still shows the banner after someone else re-armed: the API's refusal is shown.
  step = 'breaker error';
  const stale = { tripped: true, tripped_at: new Date().toISOString(), reason: 'stale view', ticket_id: null,
    rearmed_by: null, rearmed_at: null };
  await page.route('**/api/breaker', (route) => (route.request().method() === 'GET'
    ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(stale) })
    : route.continue()));
  await page.goto(`${BASE}/`);
  await banner.waitFor();
  check(await stormLink.isHidden(), 'the banner links to a storm ticket it does not have');
  expectPrompts('E2E SRE', '');
  const refusedPromise = page.waitForResponse((r) => r.url().endsWith('/api/breaker/rearm'));
  await page.getByTestId('breaker-rearm').click();
  check((await refusedPromise).status() === 409, 're-arming a breaker that is not tripped was not refused');
  await page.getByTestId('error').waitFor();
  const rearmErr = await page.getByTestId('error').innerText();
  check(/409/.test(rearmErr) && /not tripped/.test(rearmErr), `the refused re-arm shows "${rearmErr}"`);
  await page.unroute('**/api/breaker');
  await banner.waitFor({ state: 'hidden' });
  log(`a refused re-arm is shown: "${squash(rearmErr)}"`);

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
