/** `packscope/recordingInfo`: what a recording holds, as the Recordings view shows it; `packscope/allowRead`: a file the user picked. */
import { AllowReadRequest, RecordingInfoRequest } from '../../protocol/server-protocol.ts';
import { openRecording } from '../recording-opener.ts';
import { paramsObject, requireString } from '../request-params.ts';
import { withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';

export function registerRecordingHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(RecordingInfoRequest, (params, token) =>
    context.guarded(() =>
      withProgress(
        context,
        params.workDoneToken,
        'Reading recording',
        token,
        async (progress) => (await openRecording(context, params, token, progress)).info,
      ),
    ),
  );

  // The client says the user picked this file (read-rules.ts): the one way past the read rules.
  connection.onRequest(AllowReadRequest, (params) =>
    context.guarded(() => ({ file: context.readRules.grant(requireString(paramsObject(params).file, 'file')) })),
  );
}
