/**
 * localStorage when the browser offers it, nothing otherwise: storage may be blocked (privacy
 * settings, some embedded views), and the app must work without it (seats follow the session cookie).
 */

function storage(): Storage | null {
  try {
    const store = window.localStorage;
    store.getItem("masques.probe"); // throws where storage is blocked
    return store;
  } catch {
    return null;
  }
}

export const store = {
  get(key: string): string | null {
    try {
      return storage()?.getItem(key) ?? null;
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      storage()?.setItem(key, value);
    } catch {
      // full or blocked: the value is only a convenience
    }
  },
  remove(key: string): void {
    try {
      storage()?.removeItem(key);
    } catch {
      // blocked: nothing was stored
    }
  },
  /** Every stored key that starts with `prefix`. */
  keys(prefix: string): string[] {
    const s = storage();
    if (!s) return [];
    try {
      return Array.from({ length: s.length }, (_, i) => s.key(i) ?? "").filter((k) => k.startsWith(prefix));
    } catch {
      return [];
    }
  },
};
