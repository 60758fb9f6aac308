// Known results for the webview tests, shaped as the server sends them (server-protocol.ts).
// The sweep is an earlier README's git.git table (`packscope sweep --limits 0,1m,4m,16m,96m,256m
// --policies … lograw.psrec`, 215237 reads). Its fourth column was libgit2's model before it became
// libgit2 as shipped; it is named here by the spec the Cache Lab offers today (CACHE_LAB_POLICIES),
// because the webview only draws what it is sent and its saved state keeps the offered order.

const M = 1024 * 1024;

export const SWEEP_LIMITS = [0, M, 4 * M, 16 * M, 96 * M, 256 * M];
export const SWEEP_POLICIES = ['git', 'git-legacy', 'gdsf', 'libgit2:as-shipped', 'belady'];
/** Rows = limits, columns = policies: inflations. */
export const SWEEP_INFLATIONS = [
  [1187090, 1187090, 1187090, 1670818, 1187090],
  [535983, 513870, 371799, 678099, 421968],
  [309067, 298651, 291769, 415236, 261988],
  [245279, 296574, 255157, 265202, 230583],
  [231273, 296574, 234230, 235786, 229693],
  [229857, 296574, 230394, 231367, 229693],
];

/** The README's block, as `packscope sweep` prints it (and "Copy as text" must give). */
export const README_TABLE = `inflations over 215237 reads
limit  git      git-legacy  gdsf     libgit2:as-shipped  belady
0      1187090     1187090  1187090             1670818  1187090
1m      535983      513870   371799              678099   421968
4m      309067      298651   291769              415236   261988
16m     245279      296574   255157              265202   230583
96m     231273      296574   234230              235786   229693
256m    229857      296574   230394              231367   229693
checked against real builds of git (docs/policies.md): gdsf: git 2.55.0 + gdsf.patch
`;

export const README_MARKDOWN = `inflations over 215237 reads:

| limit | git | git-legacy | gdsf | libgit2:as-shipped | belady |
| --- | ---: | ---: | ---: | ---: | ---: |
| 0 | 1187090 | 1187090 | 1187090 | 1670818 | 1187090 |
| 1m | 535983 | 513870 | 371799 | 678099 | 421968 |
| 4m | 309067 | 298651 | 291769 | 415236 | 261988 |
| 16m | 245279 | 296574 | 255157 | 265202 | 230583 |
| 96m | 231273 | 296574 | 234230 | 235786 | 229693 |
| 256m | 229857 | 296574 | 230394 | 231367 | 229693 |

checked against real builds of git (docs/policies.md): gdsf: git 2.55.0 + gdsf.patch
`;

/** Repository-derived strings that must show as text, never as markup. */
export const HOSTILE_FILE = '/tmp/<img src=x id=injected>.psrec';

export function recordingInfo({
  file = '/home/user/.cache/packscope/recordings/lograw.psrec',
  command = 'git log --raw -n 60000',
  reads = 215237,
} = {}) {
  return {
    file,
    repository: '/src/git.git/.git',
    mode: 'exact',
    recordedLimit: 0,
    command,
    args: command === null ? null : command.split(' ').slice(1),
    cwd: command === null ? null : '/src/git.git',
    gitVersion: '2.39.5',
    startedAt: '2026-11-30T06:00:00.000Z',
    exitStatus: 0,
    traceLines: reads,
    reads,
    segments: [{ index: 1, command, reads }],
    packs: [
      {
        path: '/src/git.git/.git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.pack',
        checksum: '0123456789abcdef0123456789abcdef01234567',
      },
    ],
    warnings: [],
  };
}

export function sweepResult(info = recordingInfo()) {
  const results = [];
  SWEEP_LIMITS.forEach((limit, row) => {
    SWEEP_POLICIES.forEach((policy, column) => {
      const inflations = SWEEP_INFLATIONS[row][column];
      results.push({
        policy,
        limit,
        referenceBound: policy === 'belady',
        // As the policy table labels it (docs/policies.md); libgit2 and belady are what-ifs.
        checkedAgainst: policy === 'gdsf' ? 'git 2.55.0 + gdsf.patch' : null,
        reads: 215237,
        logged: 215237,
        inflations,
        deltaApplications: inflations - 100000,
        inflatedBytes: inflations * 731,
        evictions: 0,
        peakCacheBytes: limit,
        seconds: 0.5,
        // Shown as plain numbers: the webview tests that check layout treat these cells as exact.
        exact: true,
        bounds: null,
        hiddenReads: null,
        exactness: 'test fixture',
      });
    });
  });
  return { recording: info, results };
}

export function indexPackResults() {
  return [
    {
      pack: '/src/git.git/.git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.pack',
      objects: 849014,
      limit: 96 * M,
      variants: [
        {
          variant: 'v2.36',
          inflations: 1686682,
          deltaApplications: 800000,
          reconstructions: 254003,
          peakBytes: 100000000,
        },
        { variant: 'v2.55', inflations: 1432679, deltaApplications: 800000, reconstructions: 0, peakBytes: 100600000 },
        {
          variant: 'release-when-done',
          inflations: 1432679,
          deltaApplications: 800000,
          reconstructions: 0,
          peakBytes: 90000000,
        },
      ],
    },
  ];
}

function quantiles(scale) {
  return Array.from({ length: 101 }, (_, p) => Math.round(scale * Math.pow(1.18, p)) - scale + (p === 0 ? 0 : 12));
}

export function localityResult(info = recordingInfo(), scale = 40) {
  const q = quantiles(scale);
  const pick = (p) => q[Math.ceil(p)];
  return {
    recording: info,
    pageCache: { cacheMiB: 256, readaheadKiB: 128 },
    packs: [
      {
        pack: info.packs[0].path,
        reads: info.reads,
        seeks: info.reads - 1,
        percentiles: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9].map((p) => ({ p, bytes: pick(p) })),
        shortSeekShare: 0.71,
        backwardSeekShare: 0.43,
        pagesTouched: 5210,
        byteSpan: 495000000,
        pageFaults: 3100,
        distanceQuantiles: q,
      },
    ],
  };
}
