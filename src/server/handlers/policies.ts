import { describePolicies } from '../../core/sim/policy-registry.ts';
import { PoliciesRequest } from '../../protocol/server-protocol.ts';
import type { ServerContext } from '../server-context.ts';

/** packscope/policies: the policy table the sweeps run, for the Cache Lab's checkboxes. */
export function registerPolicyHandlers(context: ServerContext): void {
  context.connection.onRequest(PoliciesRequest, () => context.guarded(() => ({ policies: describePolicies() })));
}
