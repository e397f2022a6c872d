// The build goes into the Python package, so `masques serve` ships the client without Node.js.
// The unit tests (vitest, test/*.test.ts) run first in `npm run build`, translations included.
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/masques/server/static",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
