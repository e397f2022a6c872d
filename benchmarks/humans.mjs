// Scripted human seats for benchmarks/server.py (`--driver node`): the same play as its Python
// seats (`_session`, `_play`, `table`), in one Node.js process.  A Python client spends about as much
// CPU per move as the server does, so on a small machine it takes the cores the server is measured
// on; this one spends several times less.
//
// Reads one JSON document on stdin:
//   {base_url, ws_urls, start_epoch, end_epoch, think, think_spread, recv_timeout, seats, options,
//    tables: [{number, match_id, tokens: {seat: token}, delay (s before its first game)}]}
// and writes one on stdout when every table is done:
//   {actions, human_actions, round_trips (seconds), errors, error_codes, timeouts, games}
// Only the loopback addresses it is given are contacted; every loop is bounded.
import { createRequire } from "node:module";

const require = createRequire(new URL("../web/package.json", import.meta.url));
const WebSocket = require("ws");

const MAX_GAMES_PER_TABLE = 1000;
const MAX_MESSAGES = 100000;

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

// A small seeded generator (mulberry32): each seat's choices replay from its table, game and seat.
// Its waits (think * (1 +- think_spread), drawn anew each turn) come from a generator of their own.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const now = () => Date.now() / 1000;

const stats = {
  actions: 0,
  human_actions: 0,
  round_trips: [],
  errors: 0,
  error_codes: {},
  timeouts: 0,
  games: 0,
};

function refused(message) {
  if (message.type !== "error") return false;
  stats.errors += 1;
  const code = String(message.code);
  stats.error_codes[code] = (stats.error_codes[code] || 0) + 1;
  return true;
}

// One seat until its game ends (true) or the window closes, the connection drops or goes quiet (false).
function session(cfg, url, counts, random, pauses) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1 << 22 });
    let acted = -1;
    let lastVersion = null;
    let sentAt = null;
    let sentVersion = -1;
    let received = 0;
    let done = false;
    let quiet = null;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      ws.terminate();
      resolve(result);
    };
    const listen = () => {
      clearTimeout(quiet);
      const left = cfg.end_epoch - now();
      if (left <= 0) return finish(false);
      const silence = left > cfg.recv_timeout; // else the window closes first: not a timeout
      quiet = setTimeout(() => {
        if (silence) stats.timeouts += 1;
        finish(false);
      }, 1000 * Math.min(left, cfg.recv_timeout));
    };
    ws.on("open", listen);
    ws.on("error", (err) => {
      process.stderr.write(`connection lost: ${err}\n`);
      stats.errors += 1;
      finish(false);
    });
    ws.on("close", () => finish(false));
    ws.on("message", (raw) => {
      if (done) return;
      received += 1;
      if (received > MAX_MESSAGES) return finish(false);
      const at = now();
      const message = JSON.parse(raw);
      listen();
      if (refused(message) || message.type !== "state") return;
      const version = message.version;
      if (sentAt !== null && version > sentVersion) {
        if (sentAt >= cfg.start_epoch) {
          stats.round_trips.push(at - sentAt);
          stats.human_actions += 1;
        }
        sentAt = null;
      }
      if (counts) {
        if (lastVersion !== null && version > lastVersion && at >= cfg.start_epoch) {
          stats.actions += version - lastVersion;
        }
        lastVersion = lastVersion === null ? version : Math.max(lastVersion, version);
      }
      if (message.to_move === null) {
        if (counts) stats.games += 1;
        return finish(true);
      }
      if (message.your_turn && version > acted) {
        acted = version;
        const legal = message.legal;
        const think = cfg.think * (1 + (cfg.think_spread || 0) * (2 * pauses() - 1));
        setTimeout(() => {
          if (done) return;
          if (now() >= cfg.end_epoch) return finish(false);
          const action = legal[Math.floor(random() * legal.length)].id;
          sentAt = now();
          sentVersion = version;
          ws.send(JSON.stringify({ type: "action", action, version }));
        }, 1000 * think);
      }
    });
  });
}

async function post(cfg, path, body) {
  // a BigInt (a deal's seed) is written as the JSON number it is
  const text = JSON.stringify(body, (_, value) => (typeof value === "bigint" ? `#${value}#` : value));
  const response = await fetch(cfg.base_url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: text.replace(/"#(\d+)#"/g, "$1"),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// A table's next match: created with its fixed deal, every human seat joined.
async function newMatch(cfg, seed) {
  const created = await post(cfg, "/api/matches", {
    game: "masker",
    options: cfg.options,
    seats: cfg.seats.map((kind) => ({ kind })),
    seed,
  });
  const tokens = {};
  for (const [seat, kind] of cfg.seats.entries()) {
    if (kind !== "human") continue;
    const joined = await post(cfg, `/api/matches/${created.id}/join`, { name: `bench ${seat}`, seat });
    tokens[seat] = joined.token;
  }
  return { match_id: created.id, tokens };
}

async function table(cfg, first) {
  await new Promise((resolve) => setTimeout(resolve, 1000 * (first.delay || 0)));
  let { match_id: matchId, tokens } = first;
  const seats = Object.keys(tokens).map(Number);
  const counting = Math.min(...seats);
  for (let game = 0; game < MAX_GAMES_PER_TABLE; game += 1) {
    const results = await Promise.all(
      seats.map((seat) => {
        const base = cfg.ws_urls[(first.number + seat) % cfg.ws_urls.length];
        const url = `${base}/ws/matches/${matchId}?token=${tokens[seat]}`;
        const seed = (first.number * 1000 + game) * 10 + seat;
        return session(cfg, url, seat === counting, generator(seed), generator(seed ^ 0x5bd1e995));
      }),
    );
    if (!results.every(Boolean) || now() >= cfg.end_epoch) return;
    try {
      const deal = BigInt(cfg.deal_base) + BigInt(first.number * 1000 + game + 1);
      ({ match_id: matchId, tokens } = await newMatch(cfg, deal));
    } catch (err) {
      process.stderr.write(`new match refused: ${err}\n`);
      stats.errors += 1;
      return;
    }
  }
}

const cfg = JSON.parse(await readStdin());
await Promise.all(cfg.tables.map((first) => table(cfg, first)));
process.stdout.write(JSON.stringify(stats));
