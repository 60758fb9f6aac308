/** `packscope/recordingInfo`: what a recording holds, as the Recordings view shows it. */
import { RecordingInfoRequest } from '../../protocol/server-protocol.ts';
import { openRecording } from '../recording-opener.ts';
import { withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';

export function registerRecordingHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(RecordingInfoRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Reading recording', token, async (progress) => (await openRecording(context, params, token, progress)).info),
    ),
  );
}
