// The service worker of the installed app (docs/web.md "Installed"). The server serves this
// file at /sw.js with the shell's version and file list written in (weimaque.server.edge.shell):
// any change to a static file is a new worker, which caches the new files under a new name
// and deletes the old cache when it takes over.
const VERSION = "{{version}}";
const SHELL = ["{{shell}}"];
const CACHE = `wmq-shell-${VERSION}`;
const OFFLINE = "/static/offline.html";
// The header with which a page says the shell's version the server has now.
const VERSION_HEADER = "x-wmq-shell";
// Pages (client ids) that came with another version than ours: their files come from the
// network, so an upgrade never shows an old page, not even at the first start after it.
const newer = new Set();

self.addEventListener("install", (event) => {
  const fresh = SHELL.map((url) => new Request(url, { cache: "reload" }));
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(fresh))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith("wmq-shell-") && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (request.mode === "navigate") event.respondWith(page(event));
  else if (SHELL.includes(url.pathname)) event.respondWith(shellFile(event));
  // Anything else (/api/*: live and private data) is the network's, never cached.
});

/** A page: always from the network; offline, the page that says so and reconnects. */
async function page(event) {
  try {
    const response = await fetch(event.request);
    const version = response.headers.get(VERSION_HEADER);
    if (version && version !== VERSION) newer.add(event.resultingClientId);
    return response;
  } catch {
    return (await caches.match(OFFLINE)) ?? Response.error();
  }
}

/** A file of the shell: from the cache (an instant start), else from the network. */
async function shellFile(event) {
  const url = new URL(event.request.url);
  const key = url.pathname; // the shell is cached by path (a ?query names the same file)
  const fresh = newer.has(event.clientId);
  if (!fresh) {
    const cached = await caches.match(key, { cacheName: CACHE });
    if (cached) return cached;
  }
  try {
    // A page of a newer version asks the server past the browser's HTTP cache too.
    return await fetch(event.request, fresh ? { cache: "no-cache" } : {});
  } catch {
    return (await caches.match(key)) ?? Response.error();
  }
}
