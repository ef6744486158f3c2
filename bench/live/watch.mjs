// A person watching: opens the live view's socket as its page does (retrying until vimgpt listens), counts the
// frames it is sent, and prints them as JSON when vimgpt closes it. Node 20: run with --experimental-websocket.
//   node --experimental-websocket bench/live/watch.mjs ws://127.0.0.1:PORT/ws?token=T
const [url] = process.argv.slice(2);
const counts = { live_frames: 0, model_frames: 0, live_bytes: 0, messages: 0 };
const deadline = Date.now() + 30000;

function open() {
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  let opened = false;
  socket.onopen = () => { opened = true; };
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') { counts.messages += 1; return; }
    const kind = String.fromCharCode(new Uint8Array(event.data)[0]);
    if (kind === 'L') { counts.live_frames += 1; counts.live_bytes += event.data.byteLength; }
    else counts.model_frames += 1;
  };
  socket.onclose = () => {
    if (!opened && Date.now() < deadline) { setTimeout(open, 50); return; }
    console.log(JSON.stringify(counts));
  };
}
open();
