// The build goes into the Python package, so `masques serve` ships the client without Node.js.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/masques/server/static",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
  },
});
