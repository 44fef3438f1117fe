// The installed app (docs/web.md "Installed"): the service worker at /sw.js keeps the shell's
// files, so the game starts at once from the home screen and, offline, says so and reconnects.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // Without it (some private windows, plain http on another host) the game is a plain page.
  });
}
