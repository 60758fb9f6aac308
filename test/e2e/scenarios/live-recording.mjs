// Live terminal recording in a real workbench: with "Toggle Recording" on, git commands
// typed into an integrated terminal appear in the Recordings view while recording is still on —
// each with git's own number of pack reads (GIT_TRACE_PACK_ACCESS of the same command run here) —
// under the live recording's name, which is the name the finished recording keeps; a recording
// made in a repository outside the open folder is listed under that repository.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Recordings view: terminal git commands listed live while recording is on; a recording outside the folder listed under its repository';

const RECORDINGS_ROWS = '.part.sidebar .pane:has(> .pane-header[aria-label="Recordings Section"]) .monaco-list-row';

function recordingRows(page) {
  return page.locator(RECORDINGS_ROWS).evaluateAll((rows) =>
    rows
      .map((r) => ({
        label: r.querySelector('.label-name')?.textContent ?? '',
        description: r.querySelector('.label-description')?.textContent ?? '',
        level: Number(r.getAttribute('aria-level')),
        index: Number(r.getAttribute('data-index') ?? NaN),
      }))
      .sort((a, b) => a.index - b.index),
  );
}

/** GIT_TRACE_PACK_ACCESS lines of `git args` in `cwd` at core.deltaBaseCacheLimit=0 (what an exact recording runs with). */
function gitReads(helpers, cwd, args) {
  const trace = path.join(helpers.tempDir('oracle'), 'reads.trace');
  execFileSync('git', ['-c', 'core.deltaBaseCacheLimit=0', ...args], {
    cwd,
    env: { ...process.env, GIT_TRACE_PACK_ACCESS: trace },
    stdio: 'ignore',
    maxBuffer: 64 << 20,
  });
  return fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /\.pack \d+$/.test(line)).length;
}

async function typeInTerminal(page, line) {
  await page.locator('.terminal-wrapper.active .xterm').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

export async function run({ helpers, log }) {
  const folder = helpers.makeGitRepository({ commits: 10, files: 3 });
  const outside = helpers.makeGitRepository({ commits: 8, files: 2 });
  const logPatchReads = gitReads(helpers, folder, ['log', '-p']);
  const outsideReads = gitReads(helpers, outside, ['log', '--raw']);
  log(
    `git itself: log -p reads ${logPatchReads} times in the folder, log --raw ${outsideReads} times in ${path.basename(outside)}`,
  );

  const { page } = await helpers.openWorkbench({
    workspaceFolder: folder,
    userSettings: { 'terminal.integrated.defaultProfile.linux': 'bash', 'packscope.recording.mode': 'exact' },
  });
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Recordings Section"]').waitFor({ timeout: 30_000 });
  if ((await page.locator('.pane-header[aria-label="Recordings Section"]').getAttribute('aria-expanded')) !== 'true')
    await page.locator('.pane-header[aria-label="Recordings Section"]').click();

  await helpers.runCommand(page, 'PackScope: Toggle Recording');
  await page.locator('.statusbar-item', { hasText: 'PackScope: recording (exact)' }).waitFor({ timeout: 30_000 });
  const status = await waitUntil(
    async () => (await recordingRows(page)).find((r) => r.label === 'Recording terminals (exact)…'),
    'the "Recording terminals" row',
  );
  log(`recording on: "${status.label}"`);

  // A terminal opened after recording started has the recording variables.
  await helpers.runCommand(page, 'Terminal: Create New Terminal');
  await page.locator('.terminal-wrapper.active .xterm').waitFor({ timeout: 30_000 });
  await waitUntil(
    async () =>
      /[$#] *$/.test((await page.locator('.terminal-wrapper.active .xterm-rows').innerText()).trim())
        ? true
        : undefined,
    "the shell's prompt",
    { timeout: 30_000 },
  );
  await typeInTerminal(page, 'git --no-pager log -p > /dev/null');

  // Listed while recording is on: under the status row, with git's own count of reads.
  const live = await waitUntil(
    async () => {
      const rows = await recordingRows(page);
      const at = rows.findIndex((r) => r.label === 'Recording terminals (exact)…');
      const command = rows.find((r, i) => i > at && r.level === rows[at].level + 1 && r.label === 'git log -p');
      return command && command.description === `${logPatchReads} reads` ? { status: rows[at], command } : undefined;
    },
    `"git log -p" (GIT_TRACE names it without --no-pager) with ${logPatchReads} reads under the live recording`,
    { timeout: 60_000 },
  );
  log(
    `live: "${live.command.label}" (${live.command.description}) under "${live.status.label}" — ${live.status.description}`,
  );
  const liveName = /^(terminal session \d{4}-\d\d-\d\d \d\d:\d\d:\d\d) · 1 command, /.exec(
    live.status.description,
  )?.[1];
  if (liveName === undefined)
    throw new Error(
      `the live row's description "${live.status.description}" does not start with the recording's name and its 1 command`,
    );
  await helpers.screenshot(page, 'live');

  // A second command while still on, in another repository: it joins the list, said to be
  // elsewhere (its reads are of that repository's packs: no replay of this recording uses them).
  await typeInTerminal(page, `cd ${outside} && git log --raw > /dev/null && cd -`);
  await waitUntil(
    async () => {
      const rows = await recordingRows(page);
      return rows.some(
        (r) => r.label === 'git log --raw' && r.description === `${outsideReads} reads · in ${path.basename(outside)}`,
      ) && rows.some((r) => r.label === 'git log -p')
        ? true
        : undefined;
    },
    `"git log --raw" with ${outsideReads} reads in ${path.basename(outside)} listed live too`,
    { timeout: 60_000 },
  );
  log('live: the second command (in a repository outside the folder) joined the list, marked as run there');
  await helpers.screenshot(page, 'live-two-commands');

  // Stopped: the recording keeps the name it had while live.
  await helpers.runCommand(page, 'PackScope: Toggle Recording');
  await page.locator('.statusbar-item', { hasText: 'PackScope: not recording' }).waitFor({ timeout: 30_000 });
  const finished = await waitUntil(
    async () => (await recordingRows(page)).find((r) => r.label === liveName),
    `the finished recording named "${liveName}"`,
    { timeout: 60_000 },
  );
  log(`finished: "${finished.label}" (${finished.description})`);

  // Recorded only outside the folder: listed under that repository, not "Unknown repository".
  await helpers.runCommand(page, 'PackScope: Toggle Recording');
  await page.locator('.statusbar-item', { hasText: 'PackScope: recording (exact)' }).waitFor({ timeout: 30_000 });
  // A shell keeps the environment it started with: the terminal opened earlier still names the
  // first session's file (VS Code marks it "relaunch"), so this command runs in a new terminal.
  await helpers.runCommand(page, 'Terminal: Create New Terminal');
  await waitUntil(
    async () =>
      /[$#] *$/.test((await page.locator('.terminal-wrapper.active .xterm-rows').innerText()).trim())
        ? true
        : undefined,
    "the new shell's prompt",
    { timeout: 30_000 },
  );
  await typeInTerminal(page, `git -C ${outside} log --raw > /dev/null`);
  await waitUntil(
    async () =>
      (await recordingRows(page)).some((r) => r.label === 'git log --raw' && r.description === `${outsideReads} reads`)
        ? true
        : undefined,
    'the outside command listed live',
    { timeout: 60_000 },
  );
  await helpers.runCommand(page, 'PackScope: Toggle Recording');
  const group = await waitUntil(
    async () => {
      const rows = await recordingRows(page);
      const at = rows.findIndex((r) => r.level === 1 && r.label === path.basename(outside));
      return at >= 0 && rows[at + 1]?.level === 2 && /^terminal session /.test(rows[at + 1].label)
        ? rows[at]
        : undefined;
    },
    `a repository row "${path.basename(outside)}" holding the recording made there`,
    { timeout: 60_000 },
  );
  const rows = await recordingRows(page);
  if (rows.some((r) => r.label === 'Unknown repository'))
    throw new Error(`a recording is listed under "Unknown repository": ${JSON.stringify(rows)}`);
  log(`outside the folder: listed under "${group.label}" (${group.description})`);
  await helpers.screenshot(page, 'outside-repository');
}
