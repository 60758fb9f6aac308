// packscope/policies: the server sends the engine's policy table (every row without its `make`), and
// the Cache Lab's checkboxes derived from it are the ones the engine's table marks for the lab.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CACHE_LAB_POLICIES, describePolicies, POLICY_NAMES } from '../../src/core/sim/policy-registry.ts';
import { PoliciesRequest } from '../../src/protocol/server-protocol.ts';
import { tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';

test('packscope/policies sends the policy table as plain JSON', async (t) => {
  const root = tempDir(t, 'packscope-policies-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
  });
  try {
    const { policies } = await server.connection.sendRequest(PoliciesRequest, {});
    assert.deepEqual(policies, describePolicies());
    assert.deepEqual(
      policies.map((policy) => policy.spec),
      POLICY_NAMES,
    );
    assert.deepEqual(
      policies.flatMap((policy) => (policy.cacheLab === undefined ? [] : [policy.cacheLab])),
      CACHE_LAB_POLICIES,
    );
  } finally {
    assert.equal(await server.stop(), 0, 'the server exits cleanly after shutdown/exit');
  }
});
