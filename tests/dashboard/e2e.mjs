// Browser half of the dashboard end-to-end test; tests/dashboard/run.sh sets up the fabric,
// database, users and service and then runs this with:
//   BASE_URL    the service, e.g. http://127.0.0.1:PORT
//   OUT_DIR     where screenshots go
//   CHROMIUM    the Chromium executable (default /usr/bin/chromium)
//   RULES_DIR   the rules folder the service reads (a copy): the reload banner check edits it
//   SIM_URL     the simulator (faults, repairs, node descriptions)
//   FAULT_PORT  the switch-side port of the link this test breaks; HOST_PORT its host end
//   DB_URL      libpq connection string of the service's database (psql trips the breaker)
//   FABRIC      the fabric name in the service's config
//   API_TOKEN   an engineer's API token, for the test's own reads of the API
//   TECH_USER/TECH_PASS, VIEWER_USER/VIEWER_PASS, ENG_USER/ENG_PASS   the people
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs, { mkdirSync } from 'node:fs';
import path from 'node:path';

const env = process.env;
const BASE = env.BASE_URL;
const OUT = env.OUT_DIR || '.';
const SIM = env.SIM_URL;
const FAULT_PORT = env.FAULT_PORT;
const HOST_PORT = env.HOST_PORT;
const DB_URL = env.DB_URL;
const FABRIC = env.FABRIC;
const TOKEN = env.API_TOKEN;
const TECH = { name: env.TECH_USER, pass: env.TECH_PASS, role: 'technician' };
const VIEWER = { name: env.VIEWER_USER, pass: env.VIEWER_PASS, role: 'viewer' };
const ENG = { name: env.ENG_USER, pass: env.ENG_PASS, role: 'engineer' };
const STEP_MS = 20_000;
for (const k of ['BASE_URL', 'SIM_URL', 'FAULT_PORT', 'HOST_PORT', 'DB_URL', 'FABRIC', 'API_TOKEN', 'RULES_DIR',
  'TECH_USER', 'TECH_PASS', 'VIEWER_USER', 'VIEWER_PASS', 'ENG_USER', 'ENG_PASS']) {
  if (!env[k]) {
    console.error(`e2e.mjs: ${k} must be set`);
    process.exit(2);
  }
}
mkdirSync(OUT, { recursive: true });
// A host's node description comes from the fabric: it may hold markup, which must show as text.
const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let step = 'start';
const started = Date.now();
const log = (msg) => console.log(`e2e_dashboard: [${((Date.now() - started) / 1000).toFixed(0)} s] ${msg}`);
function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, fn, timeoutMs) {
  const until = Date.now() + timeoutMs;
  let last;
  while (Date.now() < until) {
    last = await fn();
    if (last) return last;
    await sleep(400);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}
// The test's own reads and writes of the API, as the engineer's token.
async function apiJson(p, init = {}) {
  const headers = Object.assign({ Authorization: `Bearer ${TOKEN}` }, init.headers || {});
  if (init.body) headers['Content-Type'] = 'application/json';
  const r = await fetch(`${BASE}${p}`, Object.assign({}, init, { headers, signal: AbortSignal.timeout(10_000) }));
  const text = await r.text();
  check(r.ok, `${init.method || 'GET'} ${p} answered HTTP ${r.status}: ${text}`);
  return JSON.parse(text);
}
const apiTicket = (id) => apiJson(`/api/tickets/${id}`);
async function sim(p, body) {
  const r = await fetch(`${SIM}${p}`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  check(r.ok, `POST ${p} to the simulator answered HTTP ${r.status}: ${text}`);
  return JSON.parse(text);
}
// The state badge's words.
const stateText = (t) => {
  if (t.state === 'closed' && t.resolution === 'wont_fix') return "closed: won't fix";
  return t.state === 'port_disabled' && t.method === 'isolate' ? 'port isolated' : String(t.state).replace(/_/g, ' ');
};
const squash = (s) => String(s).replace(/\s+/g, ' ').trim();
const onLink = (t, port) => (t.ports || []).some((p) => String(p.name).toLowerCase() === port.toLowerCase()) ||
  String(t.action_port || '').toLowerCase() === port.toLowerCase();
const sqlText = (v) => `'${String(v).replace(/'/g, "''")}'`;
function psql(sql) {
  return execFileSync('psql', [DB_URL, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', sql],
    { encoding: 'utf8', timeout: 20_000 }).trim();
}

const browser = await chromium.launch({
  executablePath: env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  timeout: 60_000,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const pageErrors = [];
const quietSteps = new Set(['login as technician', 'viewer', 'error display', 'breaker error', 'session ends']);
let page;
let context;
const shot = (name, opts = {}) => page.screenshot(Object.assign({ path: path.join(OUT, name) }, opts));

// Clicks the element and answers the response to the POST whose URL ends with `urlEnd`.
async function clickFor(locator, urlEnd) {
  const [resp] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith(urlEnd) && r.request().method() === 'POST'),
    locator.click()]);
  return resp;
}
async function login(who) {
  await page.getByTestId('login-form').waitFor();
  await page.getByTestId('login-name').fill(who.name);
  await page.getByTestId('login-password').fill(who.pass);
  const r = await clickFor(page.getByTestId('login-submit'), '/api/login');
  check(r.status() === 200, `logging in as ${who.name} answered HTTP ${r.status()}: ${await r.text()}`);
  const body = await r.json();
  check(body.csrf && body.role === who.role, `the login answer for ${who.name}: ${JSON.stringify(body)}`);
  const cookie = (await r.allHeaders())['set-cookie'] || '';
  check(/httponly/i.test(cookie) && /samesite=strict/i.test(cookie),
    `the session cookie is not HttpOnly and SameSite=Strict: ${cookie}`);
  await page.getByTestId('whoami').waitFor();
  check((await page.getByTestId('whoami').innerText()).trim() === who.name, 'the header does not show who logged in');
  check((await page.getByTestId('whoami-role').innerText()).trim() === who.role, 'the header does not show the role');
  await page.getByTestId('login-view').waitFor({ state: 'hidden' });
}
async function logout() {
  const r = await clickFor(page.getByTestId('logout-button'), '/api/logout');
  check(r.status() < 300, `POST /api/logout answered HTTP ${r.status()}`);
  await page.getByTestId('login-form').waitFor();
}

try {
  context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(STEP_MS);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${step}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !quietSteps.has(step)) console.log(`browser console (${step}): ${m.text()}`);
  });
  // Every mutation the page sends: JSON, same-origin, with the session's CSRF token, no "by".
  const mutations = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().startsWith(`${BASE}/api/`)) {
      mutations.push({ url: r.url(), headers: r.headers(), body: r.postData() });
    }
  });

  // --- logging in ---
  step = 'login as technician';
  await page.goto(`${BASE}/`);
  await page.getByTestId('login-form').waitFor();
  check(await page.getByTestId('list-view').isHidden(), 'the queue shows before anyone logged in');
  await page.getByTestId('login-name').fill(TECH.name);
  await page.getByTestId('login-password').fill('not-the-password');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login-error').waitFor();
  const wrong = await page.getByTestId('login-error').innerText();
  check(/wrong|password|invalid/i.test(wrong), `a wrong password shows "${wrong}"`);
  await shot('01-login.png');
  await login(TECH);
  await page.getByTestId('list-view').waitFor();
  log(`logged in as ${TECH.name} (technician) through the form`);

  // --- the header: inputs' health; the intake alert is shown, but a technician cannot dismiss it ---
  step = 'inputs and alerts';
  await page.locator('[data-testid="inputs"] [data-testid^="input-"]').first().waitFor();
  const inputs = await page.locator('[data-testid="inputs"] [data-testid^="input-"]').evaluateAll(
    (els) => els.map((e) => `${e.dataset.testid.slice(6)}=${e.dataset.state}`));
  const apiInputs = (await apiJson('/api/inputs')).inputs;
  check(inputs.length === apiInputs.length, `the header shows ${inputs.length} inputs, the API ${apiInputs.length}`);
  await page.getByTestId('alerts').waitFor();
  const alertText = await page.getByTestId('alerts').innerText();
  check(/event id gap/.test(alertText) && /were gone from UFM/.test(alertText), `the alert banner shows "${alertText}"`);
  check(await page.locator('[data-testid^="alert-dismiss-"]').count() === 0, 'a technician is offered "Dismiss" on alerts');
  log(`inputs: ${inputs.join(', ')}; alert banner shown without "Dismiss" to a technician`);

  // --- a host's node description with markup (shown as text later) ---
  step = 'hostile node description';
  const nd = await sim('/sim/node_description', { port: HOST_PORT, description: XSS });
  check(nd.node_description === XSS, `the simulator did not take the node description: ${JSON.stringify(nd)}`);

  // --- a fault while the queue is open: the ticket appears without a reload ---
  step = 'live queue';
  const known = new Set((await apiJson('/api/tickets?state=all&limit=500')).tickets.map((t) => String(t.id)));
  await page.evaluate(() => { window.__e2eMarker = 'same page'; });
  await sim('/sim/faults', { kind: 'link_down', port: FAULT_PORT });
  log(`link_down injected on ${FAULT_PORT} with the queue open`);
  const opened = await waitFor(`a ticket on ${FAULT_PORT}`, async () =>
    (await apiJson('/api/tickets?state=all&limit=500')).tickets.find((t) => !known.has(String(t.id)) && onLink(t, FAULT_PORT)),
  60_000);
  const ID = String(opened.id);
  const row = page.getByTestId(`ticket-row-${ID}`);
  await row.waitFor({ timeout: 15_000 });
  check(await page.evaluate(() => window.__e2eMarker) === 'same page', 'the page reloaded to show the new ticket');
  const before = await waitFor(`ticket ${ID} to be port_disabled`, async () => {
    const t = await apiTicket(ID);
    return t.state === 'port_disabled' ? t : null;
  }, 60_000);
  await waitFor('the row to say the port is out of service', async () =>
    (await row.getByTestId('state-badge').innerText()).trim() === stateText(before), 15_000);
  check(await page.evaluate(() => window.__e2eMarker) === 'same page', 'the page reloaded while the ticket changed');
  // The ticket's notification cannot reach its receiver: a banner says so.
  await page.getByTestId('notify-failing-e2e-hook').waitFor({ timeout: 30_000 });
  const notifyText = await page.getByTestId('notify-failing-e2e-hook').innerText();
  check(/notifications to e2e-hook/.test(notifyText) && /failing, tried again/.test(notifyText) &&
    /Last error: /.test(notifyText), `the failing-notifications banner shows "${notifyText}"`);
  log(`failing notifications shown: ${notifyText.replace(/\s+/g, ' ')}`);
  const ends = (before.ports || []).slice(0, 2);
  check(ends.length === 2, `ticket ${ID} has ${ends.length} port ends in the API, expected 2`);
  for (const [i, p] of ends.entries()) {
    check(p.system_name && p.label && p.guid && p.cable_serial,
      `API ticket ${ID} end ${i} lacks system_name/label/guid/cable_serial: ${JSON.stringify(p)}`);
  }
  const rowText = await row.innerText();
  for (const p of ends) {
    check(rowText.includes(p.system_name) && rowText.includes(p.label), `row of ticket ${ID} lacks "${p.system_name} ${p.label}": ${rowText}`);
  }
  check(/^P[1-4]$/.test((await row.getByTestId('priority-badge').innerText()).trim()), 'the row shows no priority');
  check(await page.getByTestId('group-rack').count() >= 1, 'the queue is not grouped by rack');
  const loc = before.location || {};
  if (loc.switch) {
    check(await page.locator(`[data-testid="group-switch"][data-switch="${loc.switch}"]`).count() === 1,
      `no group for switch ${loc.switch}`);
  }
  await shot('02-queue-live.png', { fullPage: true });
  log(`ticket ${ID} appeared in the open queue without a reload: ${squash(rowText)}`);

  // --- filters live in the URL ---
  step = 'filters';
  const serial = ends[0].cable_serial;
  await page.getByTestId('filter-q').fill(serial);
  await page.waitForURL((u) => new URL(u).searchParams.get('q') === serial);
  await waitFor(`only tickets on cable ${serial}`, async () => {
    const ids = await page.locator('[data-testid^="ticket-row-"]').evaluateAll((els) => els.map((e) => e.dataset.testid));
    return ids.length >= 1 && ids.every((x) => x === `ticket-row-${ID}`);
  }, STEP_MS);
  check((await page.getByTestId('csv-link').getAttribute('href')).includes(`q=${serial}`), 'the CSV link ignores the search');
  const shared = page.url();
  await page.getByTestId('filter-state').selectOption('closed');
  await page.waitForURL(/state=closed/);
  await row.waitFor({ state: 'detached' });
  await page.goBack();
  await page.waitForURL((u) => u.href === shared);
  await row.waitFor();
  check(await page.getByTestId('filter-q').inputValue() === serial, 'going back did not restore the search box');
  await page.getByTestId('filter-reset').click();
  await page.waitForURL((u) => new URL(u).search === '');
  await row.waitFor();
  log(`the search "${serial}" (cable serial) and the state filter are in the URL; back restores them`);

  // --- the ticket page ---
  step = 'ticket page';
  await page.evaluate(() => { window.__e2eMarker = 'same page'; });
  await row.getByTestId('ticket-link').click();
  await page.waitForURL(new RegExp(`/tickets/${ID}$`));
  await page.getByTestId('timeline-entry').first().waitFor();
  for (const [i, p] of ends.entries()) {
    const panel = page.getByTestId(i === 0 ? 'end-a' : 'end-b');
    const text = await panel.innerText();
    for (const v of [p.system_name, p.label, p.guid, p.cable_serial]) {
      check(text.includes(v), `ticket page end ${i} does not show "${v}": ${squash(text)}`);
    }
  }
  const detail = await apiTicket(ID);
  if (detail.what_to_do) {
    check(squash(await page.getByTestId('what-to-do').innerText()).includes(squash(detail.what_to_do)),
      'the ticket page does not show what to do');
  }
  const evidence = await page.getByTestId('evidence-text').innerText();
  check(squash(evidence) === squash(detail.explanation), `the Evidence section shows "${evidence}", the API says "${detail.explanation}"`);
  const summaryText = await page.locator('#t-summary').innerText();
  check(summaryText.includes(`${detail.method} (takes the port out by ${detail.method === 'isolate' ? 'isolating' : 'disabling'} it in UFM)`),
    `the summary does not show the method "${detail.method}": ${summaryText}`);
  await page.getByTestId('counter-chart').locator('svg').first().waitFor();
  // The service samples the ticketed ports' error counters every second here (run.sh).
  let series = [];
  await waitFor('counter samples of the ticket\'s ports', async () => {
    series = (await apiJson(`/api/tickets/${ID}/counters`)).series || [];
    return series.length > 0 && series.some((s) => s.points.length >= 2);
  }, STEP_MS);
  await waitFor('a chart per counter series', async () =>
    (await page.getByTestId('counter-series').count()) === series.length, STEP_MS);
  // The charts mark the moment the ticket opened and, once its cut is confirmed, the cut.
  const marked = async (kind) => page.locator(`[data-testid=chart-mark][data-mark=${kind}]`).count();
  await waitFor('the ticket\'s opening marked on its charts', async () => (await marked('opened')) > 0, STEP_MS);
  // The ticket is port_disabled (above): its cut is confirmed.
  await waitFor('the cut marked on the charts', async () => (await marked('cut')) > 0, STEP_MS);
  log(`ticket page: both ends with labels, GUIDs and cable serials; evidence; ${series.length} counter series charted, ` +
    'marked where the ticket opened and where the port was cut');

  // --- the node description's markup is text ---
  step = 'node description is text';
  const ndText = await waitFor('the hostile node description on the page', async () => {
    const texts = await page.getByTestId('end-node-description').allInnerTexts();
    return texts.find((t) => t.includes(XSS));
  }, 30_000);
  check(ndText.includes(XSS), 'the node description is not shown as literal text');
  check(await page.evaluate(() => window.__xss) === undefined, 'markup in a node description ran');
  check(await page.evaluate(() => document.querySelectorAll('main script, main img').length) === 0,
    'markup in a node description became elements');
  await shot('03-ticket.png', { fullPage: true });
  log('the host\'s node description shows "<script>…" as text; window.__xss stays undefined');

  // --- acknowledge, assign, comment ---
  step = 'acknowledge';
  const ack = await clickFor(page.getByTestId('acknowledge-button'), `/api/tickets/${ID}/acknowledge`);
  check(ack.status() === 200, `acknowledge answered HTTP ${ack.status()}: ${await ack.text()}`);
  const m = mutations[mutations.length - 1];
  check(m.headers['content-type'] === 'application/json' && m.headers['x-csrf-token'],
    `the acknowledge request lacks JSON or the CSRF header: ${JSON.stringify(m.headers)}`);
  check(!('by' in JSON.parse(m.body || '{}')), `the page still names the actor in the body: ${m.body}`);
  await waitFor('the badge to say acknowledged', async () =>
    (await page.locator('#t-badge').innerText()).trim() === 'acknowledged', STEP_MS);
  check((await apiTicket(ID)).acknowledged_by === TECH.name, 'the API does not name the technician as acknowledging');

  step = 'assign and comment';
  // Acknowledging an unassigned ticket takes it; hand it to the engineer by name, then take it back.
  check((await apiTicket(ID)).assigned_to === TECH.name, 'acknowledging did not assign the ticket to the technician');
  await waitFor('"Assign to me" to be disabled on my ticket', () => page.getByTestId('assign-me-button').isDisabled(), STEP_MS);
  await page.getByTestId('assign-to').fill(ENG.name);
  const toEng = await clickFor(page.getByTestId('assign-button'), `/api/tickets/${ID}/assign`);
  check(toEng.status() === 200, `assign to ${ENG.name} answered HTTP ${toEng.status()}: ${await toEng.text()}`);
  check((await apiTicket(ID)).assigned_to === ENG.name, `the ticket is not assigned to ${ENG.name}`);
  await waitFor('the page to say the engineer has it', async () => (await page.getByTestId('ticket-who').innerText()).includes(ENG.name), STEP_MS);
  const toMe = await clickFor(page.getByTestId('assign-me-button'), `/api/tickets/${ID}/assign`);
  check(toMe.status() === 200, `assign to me answered HTTP ${toMe.status()}: ${await toMe.text()}`);
  check((await apiTicket(ID)).assigned_to === TECH.name, 'the ticket is not assigned to the technician');
  await waitFor('the page to say who has it', async () => (await page.getByTestId('ticket-who').innerText()).includes(TECH.name), STEP_MS);
  const note = 'Cable tray is tight at this rack (e2e)';
  await page.getByTestId('comment-text').fill(note);
  await page.getByTestId('comment-button').click();
  await page.locator('[data-testid="timeline-entry"][data-kind="comment"]', { hasText: note }).waitFor();
  log('acknowledged (which assigns it), assigned to the engineer and back to me, commented; the actor is the logged-in technician');

  // --- a form being filled survives the page's polling, and so does the scroll position ---
  step = 'polling keeps forms';
  await page.getByTestId('repair-note').fill('half typed');
  await page.evaluate(() => window.scrollTo(0, 300));
  const y0 = await page.evaluate(() => window.scrollY);
  const stamp0 = await page.getByTestId('updated-at').innerText();
  await waitFor('a poll', async () => (await page.getByTestId('updated-at').innerText()) !== stamp0, 10_000);
  check(await page.getByTestId('repair-note').inputValue() === 'half typed', 'a poll wiped the repair note');
  check(await page.evaluate(() => window.scrollY) === y0, 'a poll moved the page');
  await page.getByTestId('repair-note').fill('');

  // --- a repair needs what was done; "Other" needs a note (checked in the page) ---
  step = 'repair kind required';
  const posted = mutations.length;
  await page.getByTestId('repaired-button').click();
  await page.getByTestId('repair-error').waitFor();
  check(/choose what was done/i.test(await page.getByTestId('repair-error').innerText()), 'no kind chosen: no message');
  await page.getByTestId('repair-kind').selectOption('other');
  await page.getByTestId('repair-note').fill('   ');
  await page.getByTestId('repaired-button').click();
  const noNote = await page.getByTestId('repair-error').innerText();
  check(/note is required/i.test(noNote) && /other/i.test(noNote), `"Other" with no note: the page says "${noNote}"`);
  check(mutations.length === posted, 'a refused repair was sent');

  // --- the link is fixed in the simulator; the technician reports it; the page follows it to closed ---
  step = 'report repair';
  await sim('/sim/repair', { port: FAULT_PORT });
  await page.getByTestId('repair-kind').selectOption('cable_replaced');
  await page.getByTestId('repair-note').fill('replaced cable (e2e test)');
  await page.evaluate(() => { window.__e2eMarker = 'same page'; });
  const repResp = await clickFor(page.getByTestId('repaired-button'), `/api/tickets/${ID}/repaired`);
  check(repResp.status() === 200, `POST repaired answered HTTP ${repResp.status()}: ${await repResp.text()}`);
  const sent = JSON.parse(mutations[mutations.length - 1].body || '{}');
  check(sent.kind === 'cable_replaced' && sent.note === 'replaced cable (e2e test)' && !('by' in sent),
    `POST repaired sent ${JSON.stringify(sent)}`);

  step = 'verification';
  const seen = [];
  await waitFor('the page to show the ticket closed', async () => {
    const b = (await page.locator('#t-badge').innerText()).trim();
    if (seen[seen.length - 1] !== b) seen.push(b);
    const t = await apiTicket(ID);
    check(!['port_disabled', 'escalated'].includes(t.state), `ticket ${ID} went back to ${t.state} after the repair`);
    return b === 'closed';
  }, 90_000);
  check(seen.includes('verifying'), `the page never showed "verifying" on the way to closed: ${seen.join(' -> ')}`);
  check(await page.evaluate(() => window.__e2eMarker) === 'same page', 'the page reloaded while following the ticket');
  await page.locator('[data-testid="timeline-entry"][data-kind="soak_passed"]').waitFor();
  const repairRow = await page.locator('[data-testid="timeline-entry"][data-kind="repair_reported"]').innerText();
  check(/repair reported: cable replaced/.test(repairRow) && repairRow.includes(TECH.name),
    `the timeline's repair entry reads "${squash(repairRow)}"`);
  check(await page.getByTestId('repair-form').isHidden(), 'the repair form is shown on a closed ticket');
  check(/Repair reported\s+Cable replaced/.test(await page.locator('#t-summary').innerText()), 'the summary lacks the repair kind');
  await shot('04-ticket-closed.png', { fullPage: true });
  log(`the page followed ticket ${ID} live: ${seen.join(' -> ')}`);

  // --- the printable work order ---
  step = 'print page';
  await page.getByTestId('print-link').click();
  await page.waitForURL(new RegExp(`/tickets/${ID}/print$`));
  await page.getByTestId('wo-title').waitFor();
  const wo = await page.getByTestId('work-order').innerText();
  check(wo.includes(`#${ID}`), 'the work order lacks the ticket id');
  for (const p of ends) {
    for (const v of [p.system_name, p.label, p.cable_serial]) check(wo.includes(v), `the work order lacks "${v}"`);
  }
  check(await page.getByTestId('wo-checklist').locator('li').count() >= 5, 'the work order has no checklist');
  check(/Signature/.test(await page.getByTestId('wo-signoff').innerText()), 'the work order has no sign-off line');
  await page.emulateMedia({ media: 'print' });
  check(await page.locator('header').isHidden() && await page.locator('.print-bar').isHidden(),
    'the print stylesheet shows the page chrome');
  await shot('05-work-order-print.png', { fullPage: true });
  await page.pdf({ path: path.join(OUT, 'work-order.pdf'), format: 'A4' });
  await page.emulateMedia({ media: 'screen' });
  log('the work order prints with both ends, cable serial, checklist and sign-off (work-order.pdf)');

  // --- CSV export with the queue's filters ---
  step = 'csv export';
  await page.goto(`${BASE}/?state=all`);
  await page.getByTestId(`ticket-row-${ID}`).waitFor();
  const href = await page.getByTestId('csv-link').getAttribute('href');
  check(/tickets\.csv\?/.test(href) && href.includes('state=all'), `the CSV link is "${href}"`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-link').click()]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  fs.writeFileSync(path.join(OUT, 'tickets.csv'), csv);
  const lines = csv.trim().split(/\r?\n/);
  check(lines.length >= 2 && /\bid\b/.test(lines[0]), `the CSV has ${lines.length} lines, header "${lines[0]}"`);
  check(lines.slice(1).some((l) => l.split(',')[0].replace(/"/g, '') === ID), `the CSV lacks ticket ${ID}`);
  log(`CSV export downloaded ${lines.length - 1} rows (${download.suggestedFilename()})`);

  // --- the link breaks again: a repeat offender, appearing live ---
  step = 'repeat offender';
  await page.goto(`${BASE}/`);
  await page.getByTestId('ticket-table').waitFor();
  const known2 = new Set((await apiJson('/api/tickets?state=all&limit=500')).tickets.map((t) => String(t.id)));
  await sim('/sim/faults', { kind: 'link_down', port: FAULT_PORT });
  const again = await waitFor(`a new ticket on ${FAULT_PORT}`, async () =>
    (await apiJson('/api/tickets?state=open&limit=500')).tickets.find((t) =>
      !known2.has(String(t.id)) && t.link === before.link && t.state !== 'open'), 60_000);
  const AGAIN = String(again.id);
  check(again.repeat_offender === true && again.repeat_count >= 1, `ticket ${AGAIN} is not a repeat offender: ${JSON.stringify(again)}`);
  const againRow = page.getByTestId(`ticket-row-${AGAIN}`);
  await againRow.waitFor();
  await waitFor('the repeat badge', async () =>
    (await againRow.getByTestId('repeat-badge').count()) === 1 &&
    (await againRow.getByTestId('repeat-badge').innerText()).trim() === `repeat: ${again.repeat_count} earlier`, STEP_MS);
  await againRow.getByTestId('ticket-link').click();
  await page.getByTestId('repeat-notice').waitFor();
  check(/repeat offender/i.test(await page.getByTestId('repeat-notice').innerText()), 'no repeat-offender notice');
  log(`ticket ${AGAIN} on the same link: repeat offender (${again.repeat_count} earlier), guard "${again.guard}"`);

  // --- a viewer sees everything and can do nothing ---
  step = 'viewer';
  await logout();
  await login(VIEWER);
  for (const id of [AGAIN, ID]) {
    await page.goto(`${BASE}/tickets/${id}`);
    await page.getByTestId('timeline-entry').first().waitFor();
    for (const b of ['acknowledge-button', 'repaired-button', 'assign-me-button', 'assign-button', 'comment-button',
      'reopen-button', 'wontfix-button', 'repair-form']) {
      check(await page.getByTestId(b).count() === 0, `a viewer is offered ${b} on ticket ${id}`);
    }
  }
  check(await page.getByTestId('actions-panel').isHidden(), 'a viewer sees an actions panel');
  check(await page.locator('[data-testid^="alert-dismiss-"]').count() === 0, 'a viewer is offered "Dismiss"');
  check(await page.getByTestId('breaker-rearm').count() === 0, 'a viewer is offered "Re-arm"');
  const refused = await page.evaluate(async (id) => {
    const me = await (await fetch('/api/me', { credentials: 'same-origin' })).json();
    const r = await fetch(`/api/tickets/${id}/acknowledge`, { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf || '' }, body: '{}' });
    return { status: r.status, body: await r.text(), role: me.role, csrf: !!me.csrf };
  }, AGAIN);
  check(refused.role === 'viewer' && refused.csrf, `GET /api/me for the viewer: ${JSON.stringify(refused)}`);
  check(refused.status === 403 && JSON.parse(refused.body).error, `a viewer's acknowledge answered ${refused.status}: ${refused.body}`);
  const anon = await fetch(`${BASE}/api/tickets`, { signal: AbortSignal.timeout(10_000) });
  const anonBody = await anon.text();
  check(anon.status === 401 && JSON.parse(anonBody).error, `an anonymous GET /api/tickets answered ${anon.status}: ${anonBody}`);
  await shot('06-viewer.png', { fullPage: true });
  log(`a viewer gets no action buttons; its acknowledge answers 403 ("${JSON.parse(refused.body).error}"); anonymous reads answer 401`);

  // A session that ends (the cookie gone) brings the login form back at the next poll.
  step = 'session ends';
  await context.clearCookies();
  await page.getByTestId('login-form').waitFor({ timeout: 15_000 });
  log('a 401 during polling returns to the login form');

  // --- an engineer: alerts, rules reload, won't fix and reopen, silences, the circuit breaker ---
  step = 'engineer: alerts';
  await login(ENG);
  await page.goto(`${BASE}/`);
  await page.getByTestId('alerts').waitFor();
  const alertsBefore = (await apiJson('/api/alerts')).alerts;
  check(alertsBefore.length >= 1, 'GET /api/alerts lists no alert');
  for (const a of alertsBefore) {
    await page.getByTestId(`alert-dismiss-${a.id}`).click();
    await page.getByTestId(`alert-${a.id}`).waitFor({ state: 'detached' });
  }
  await page.getByTestId('alerts').waitFor({ state: 'hidden' });
  check((await apiJson('/api/alerts')).alerts.length === 0, 'alerts still active after dismissing');
  log(`an engineer dismissed ${alertsBefore.length} alert(s)`);

  step = 'rules reload banner';
  const hashBefore = (await apiJson('/api/rules')).hash;
  const broken = path.join(env.RULES_DIR, 'zz_change.yaml');
  fs.writeFileSync(broken, 'rules:\n  - name: width\n    match: {event_id: 130}\n    action: explode\n');
  await page.getByTestId('alerts').waitFor({ timeout: 20_000 });
  const reloadText = await page.getByTestId('alerts').innerText();
  check(/rules reload/i.test(reloadText) && /zz_change\.yaml:4/.test(reloadText), `the rules reload banner shows "${reloadText}"`);
  await shot('07-rules-reload.png');
  check((await apiJson('/api/rules')).hash === hashBefore, 'a broken change replaced the rules');
  fs.writeFileSync(broken, 'rules:\n  - name: width\n    match: {event_id: 130}\n    action: ticket_only\n    mode: shadow\n');
  await page.getByTestId('alerts').waitFor({ state: 'hidden', timeout: 20_000 });
  const hashAfter = (await apiJson('/api/rules')).hash;
  check(hashAfter !== hashBefore, 'the mended change was not taken');
  fs.unlinkSync(broken);
  log(`rules reload banner shown for a broken change and gone once mended (${hashBefore} -> ${hashAfter})`);

  step = "won't fix and reopen";
  await page.goto(`${BASE}/tickets/${AGAIN}`);
  await page.getByTestId('wontfix-button').waitFor();
  const held = (await apiTicket(AGAIN)).disabled_by_us === true;
  await page.getByTestId('wontfix-reason').fill('link scheduled for decommission (e2e)');
  const wfResp = await clickFor(page.getByTestId('wontfix-button'), `/api/tickets/${AGAIN}/wontfix`);
  if (held) {
    check(wfResp.status() === 409, `won't fix on a port the service holds answered ${wfResp.status()}`);
    await page.getByTestId('error').waitFor();
    log(`won't fix refused while the service holds the port: "${squash(await page.getByTestId('error').innerText())}"`);
  } else {
    check(wfResp.status() === 200, `won't fix answered HTTP ${wfResp.status()}: ${await wfResp.text()}`);
    await waitFor('the badge to say won\'t fix', async () =>
      (await page.locator('#t-badge').innerText()).trim() === "closed: won't fix", STEP_MS);
    await page.getByTestId('reopen-button').waitFor();
    await page.getByTestId('reopen-reason').fill('the link is staying after all (e2e)');
    const ro = await clickFor(page.getByTestId('reopen-button'), `/api/tickets/${AGAIN}/reopen`);
    check(ro.status() === 200, `reopen answered HTTP ${ro.status()}: ${await ro.text()}`);
    await waitFor('the ticket to be open again', async () => (await apiTicket(AGAIN)).state !== 'closed', STEP_MS);
    await page.locator('[data-testid="timeline-entry"][data-kind="reopened"]').waitFor();
    log(`ticket ${AGAIN} closed as won't fix and reopened by the engineer`);
  }

  step = 'silences';
  await page.getByTestId('nav-silences').click();
  await page.waitForURL(/\/silences$/);
  await page.getByTestId('silence-create').waitFor();
  await page.getByTestId('silence-host').fill('gpu-node-09[0-9]');
  await page.getByTestId('silence-reason').fill('PDU swap in row 9 (e2e)');
  await page.getByTestId('silence-duration').fill('1h');
  const scResp = await clickFor(page.getByTestId('silence-submit'), '/api/silences');
  check(scResp.status() === 201 || scResp.status() === 200, `creating a silence answered ${scResp.status()}: ${await scResp.text()}`);
  const silence = await scResp.json();
  await page.getByTestId(`silence-row-${silence.id}`).waitFor();
  await shot('08-silences.png');
  await page.getByTestId(`silence-expire-${silence.id}`).click();
  await page.getByTestId(`silence-row-${silence.id}`).waitFor({ state: 'detached' });
  check(!(await apiJson('/api/silences')).silences.some((x) => x.id === silence.id), 'the silence is still in force');
  log(`silence #${silence.id} created and expired from the silences page`);

  // --- circuit breaker: tripped in the database (with a storm ticket), shown, re-armed ---
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
  const bannerText = await banner.innerText();
  check(/circuit breaker tripped/i.test(bannerText) && bannerText.includes('test storm'), `the breaker banner reads "${squash(bannerText)}"`);
  const stormLink = page.getByTestId('breaker-ticket');
  check((await stormLink.getAttribute('href')).endsWith(`/tickets/${stormId}`), 'the banner does not link to the storm ticket');
  const stormRow = page.getByTestId(`ticket-row-${stormId}`);
  await stormRow.waitFor();
  check((await stormRow.getByTestId('storm-label').innerText()).trim() === 'storm', 'the storm row does not say "storm"');
  check((await stormRow.getByTestId('ticket-guard').innerText()).trim() === 'breaker', 'the storm row lacks the guard');
  await shot('09-breaker.png', { fullPage: true });
  await stormLink.click();
  await page.waitForURL(new RegExp(`/tickets/${stormId}$`));
  await page.getByTestId('storm-panel').waitFor();
  await page.locator('[data-testid="timeline-entry"][data-kind="held_back"]').waitFor();
  check(await page.getByTestId('repair-form').isHidden(), 'the repair form is offered on a storm ticket');
  await page.getByTestId('breaker-note').fill('storm understood (e2e)');
  const rearm = await clickFor(page.getByTestId('breaker-rearm'), '/api/breaker/rearm');
  check(rearm.status() === 200, `POST /api/breaker/rearm answered HTTP ${rearm.status()}: ${await rearm.text()}`);
  await banner.waitFor({ state: 'hidden' });
  const rearmed = await apiJson('/api/breaker');
  check(rearmed.tripped === false && rearmed.rearmed_by === ENG.name, `after re-arm GET /api/breaker: ${JSON.stringify(rearmed)}`);
  const stormAfter = await apiTicket(stormId);
  const stormTimeline = stormAfter.timeline || stormAfter.events || [];
  check(stormAfter.state === 'closed' && stormTimeline.some((e) => e.kind === 'rearmed' && e.message.includes('storm understood (e2e)')),
    `the storm ticket after re-arm: ${JSON.stringify(stormAfter)}`);
  await page.locator('[data-testid="timeline-entry"][data-kind="rearmed"]').waitFor();
  log(`breaker banner shown for storm ticket ${stormId}; re-armed by ${ENG.name}`);

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
  const refusedRearm = await clickFor(page.getByTestId('breaker-rearm'), '/api/breaker/rearm');
  check(refusedRearm.status() === 409, `re-arming a breaker that is not tripped answered HTTP ${refusedRearm.status()}`);
  await page.getByTestId('error').waitFor();
  const rearmErr = await page.getByTestId('error').innerText();
  check(/409/.test(rearmErr) && /not tripped/.test(rearmErr), `the refused re-arm shows "${rearmErr}"`);
  await page.unroute('**/api/breaker');
  await banner.waitFor({ state: 'hidden' });
  log(`a refused re-arm is shown: "${squash(rearmErr)}"`);

  // --- another fabric's ticket in the same database: listed with its fabric, worked elsewhere ---
  step = 'other fabric';
  const otherId = psql(`INSERT INTO tickets (fabric, link_key, port_a, port_b, state, rule, reason)
    VALUES ('e2e-other-fabric', 'x_1|y_1', 'x_1', 'y_1', 'ticket_only', 'link_down', 'a link of another fabric')
    RETURNING id`);
  check(/^\d+$/.test(otherId), `inserting the other fabric's ticket printed "${otherId}"`);
  await page.goto(`${BASE}/?state=open`);
  const otherRow = page.getByTestId(`ticket-row-${otherId}`);
  await otherRow.waitFor();
  await otherRow.getByTestId('fabric-chip').waitFor();
  check((await otherRow.getByTestId('fabric-chip').innerText()).trim() === 'e2e-other-fabric',
    'the other fabric\'s row does not name its fabric');
  check((await page.locator('[data-testid="fabric-chip"]').count()) === 1,
    'rows of this service\'s own fabric carry a fabric chip');
  check((await page.locator('#fabric-name').innerText()).trim() === `Fabric ${FABRIC}`,
    `the header names "${await page.locator('#fabric-name').innerText()}", not this service's fabric`);
  await page.goto(`${BASE}/?state=open&fabric=${FABRIC}`);
  await page.getByTestId(`ticket-row-${otherId}`).waitFor({ state: 'detached' });
  await page.goto(`${BASE}/tickets/${otherId}`);
  await page.getByTestId('other-fabric-note').waitFor();
  check((await page.getByTestId('acknowledge-button').count()) === 0,
    'the acknowledge button is offered on another fabric\'s ticket');
  const otherAck = await fetch(`${BASE}/api/tickets/${otherId}/acknowledge`, { method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: '{}',
    signal: AbortSignal.timeout(10_000) });
  check(otherAck.status === 409, `acknowledging another fabric's ticket answered HTTP ${otherAck.status}`);
  psql(`UPDATE tickets SET state = 'closed', closed_at = now() WHERE id = ${otherId}`);
  log(`another fabric's ticket #${otherId} is listed with its fabric, filtered out by fabric, and offers no actions here`);

  // --- a host draining in the job scheduler: its jobs and its drain on the ticket page ---
  step = 'job scheduler';
  const drainId = psql(`INSERT INTO tickets (fabric, link_key, port_a, port_b, state, rule, reason, host_name,
      host_jobs)
    VALUES ('${FABRIC}', 'h_9|s_9', 's_9', 'h_9', 'draining', 'link_down', 'a host link went down',
      'gpu-node-9', '{"node": "gpu-node-9", "at": 0, "jobs": [{"id": "4242", "user": "alice",
      "name": "<b>pretrain</b>", "nodes": 64, "state": "RUNNING"}]}')
    RETURNING id`);
  check(/^\d+$/.test(drainId), `inserting the draining ticket printed "${drainId}"`);
  psql(`INSERT INTO node_drains (fabric, ticket_id, host, node, reason, state, sent_at)
    VALUES ('${FABRIC}', ${drainId}, 'gpu-node-9', 'gpu-node-9', 'ufm-remediator #${drainId}: link_down on s_9',
      'draining', now())`);
  await page.goto(`${BASE}/tickets/${drainId}`);
  await page.getByTestId('scheduler-panel').waitFor();
  const jobRow = page.getByTestId('host-job');
  await jobRow.first().waitFor();
  const jobText = await jobRow.first().innerText();
  check(/4242/.test(jobText) && /alice/.test(jobText) && /<b>pretrain<\/b>/.test(jobText) && /64/.test(jobText),
    `the host's job row reads "${squash(jobText)}"`);
  const drainRow = await page.getByTestId('drain-row').first().innerText();
  check(/draining/.test(drainRow) && new RegExp(`ufm-remediator #${drainId}`).test(drainRow),
    `the drain row reads "${squash(drainRow)}"`);
  check(/draining in the job scheduler/.test(await page.locator('body').innerText()),
    'the ticket page does not say the host is draining');
  psql(`UPDATE node_drains SET state = 'released' WHERE ticket_id = ${drainId}`);
  psql(`UPDATE tickets SET state = 'closed', closed_at = now() WHERE id = ${drainId}`);
  log(`a draining host's ticket #${drainId} shows its job (as text) and its drain`);

  step = 'error display';
  await page.goto(`${BASE}/tickets/999999999`);
  await page.getByTestId('error').waitFor();
  const errText = await page.getByTestId('error').innerText();
  check(/404/.test(errText), `an unknown ticket shows "${errText}", expected an HTTP 404 error`);

  check(pageErrors.length === 0, `JavaScript errors on the page: ${pageErrors.join('; ')}`);
  check(await page.evaluate(() => window.__xss) === undefined, 'window.__xss was set');
  log('browser checks passed');
} catch (e) {
  console.error(`e2e_dashboard: FAIL in step "${step}": ${e.message}`);
  if (pageErrors.length) console.error(`e2e_dashboard: JavaScript errors: ${pageErrors.join('; ')}`);
  if (page) await page.screenshot({ path: path.join(OUT, 'failure.png'), fullPage: true }).catch(() => {});
  await browser.close().catch(() => {});
  process.exit(1);
}
await browser.close();
