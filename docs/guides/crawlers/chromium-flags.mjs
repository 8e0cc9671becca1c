// Debian's chromium (apt-get install chromium), started the way a crawler on a server wants it:
// headless, no sandbox (containers rarely allow one), and nothing that talks to Google on its
// own (updates, sync, QUIC), so every connection the browser opens is a page's, through the proxy.
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
