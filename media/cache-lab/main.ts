// The Cache Lab webview: controls, the Sweep and Locality tabs, and the messages to and from the host
// (src/protocol/cache-lab-protocol.ts). It draws what the host sends and computes no simulation.
import { CACHE_LAB_PROTOCOL_VERSION } from '../../src/protocol/cache-lab-protocol.ts';
import { watchTheme } from '../common/theme.ts';
import { syncControls } from './controls.ts';
import { onHostMessage } from './messages.ts';
import { handleHostMessages, post } from './page.ts';
import { renderAll } from './views.ts';

handleHostMessages(onHostMessage);

watchTheme(() => renderAll());

syncControls();
renderAll();
post({ type: 'ready', version: CACHE_LAB_PROTOCOL_VERSION });
