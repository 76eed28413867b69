/**
 * The widget's view of the instant-win API (docs/instant-win.md). Public key only; the
 * server decides everything, the widget only asks and shows.
 */

export interface Tier {
  id: string | null;
  name: string;
  isMiss: boolean;
  color?: string | null;
  oddsPercent?: number;
}

export interface Game {
  id: string;
  title?: string;
  description?: string | null;
  mechanic?: string;
  layout?: string;
  entryLimit?: string;
  status?: string;
  tiers: Tier[];
}

export interface PlayResult {
  playId: string;
  playCookie: string;
  alreadyPlayed: boolean;
  result: Tier;
}

export interface ClaimResult {
  alreadyClaimed: boolean;
  prizeName: string;
  couponCode: string | null;
  redeemUrl: string | null;
}

/** A failed call: HTTP status (0 = the network failed), the API's `error`, and Retry-After. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly apiMessage: string,
    readonly retryAfter: number | null = null,
  ) {
    super(apiMessage || `HTTP ${status}`);
  }
}

export interface Api {
  game(): Promise<Game>;
  play(playCookie: string | undefined): Promise<PlayResult>;
  claim(playId: string, email: string, playCookie: string | undefined): Promise<ClaimResult>;
}

export function createApi(base: string, key: string, gameId: string): Api {
  const root = `${base}/api/v1/instant-win-games/${encodeURIComponent(gameId)}`;
  async function call<T>(path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(root + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        mode: 'cors',
      });
    } catch {
      throw new ApiFailure(0, '');
    }
    let json: { success?: boolean; data?: T; error?: string } | null = null;
    try {
      json = await res.json();
    } catch {
      /* not JSON (a proxy's error page, say) */
    }
    if (!res.ok || !json || json.success !== true) {
      const ra = Number(res.headers.get('retry-after'));
      throw new ApiFailure(
        res.ok ? 500 : res.status,
        typeof json?.error === 'string' ? json.error : '',
        Number.isFinite(ra) && ra > 0 ? Math.ceil(ra) : null,
      );
    }
    return json.data as T;
  }
  return {
    game: () => call<Game>(''),
    play: (playCookie) => call<PlayResult>('/play', playCookie ? { playCookie } : {}),
    claim: (playId, email, playCookie) =>
      call<ClaimResult>(`/plays/${encodeURIComponent(playId)}/claim`, playCookie ? { email, playCookie } : { email }),
  };
}
