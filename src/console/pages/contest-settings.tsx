/** @jsxImportSource hono/jsx/dom */
/** A contest's settings (private key): create a contest, and edit every setting of one. */
import { useState } from 'hono/jsx/dom';
import { PAGE_LEADERBOARD_MAX } from '../../lib/page.js';
import { SHARE_CHANNELS } from '../../lib/share-channels.js';
import { apiClient, type Credential, messageOf, must } from '../api.js';
import { navigate } from '../router.js';
import { ErrorLine, formValues, submitWith, useLoad } from '../ui.js';
import { channelInWords } from './words.js';

type Team = Extract<Credential, { kind: 'team' }>;

const MODES = ['giveaway', 'leaderboard', 'waitlist'] as const;
const STATUSES = ['draft', 'active', 'paused', 'ended'] as const;

/** datetime-local's value for an ISO date, and back (empty: no date) */
const toLocal = (iso: string | null | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocal = (v: string | undefined) => (v ? new Date(v).toISOString() : null);
const int = (v: string | undefined) => Number(v ?? '');

const CHANNELS = SHARE_CHANNELS;

/**
 * The referral points the new-contest form proposes for each mode (the API's own defaults stay as
 * the reference has them: a contest created there starts at 0). A waitlist and a leaderboard move
 * people by points: with 0 a referral moves nobody. On a waitlist the friend gets none (a friend
 * would otherwise pass the people who joined before them).
 */
const PROPOSED_POINTS: Record<(typeof MODES)[number], { advocatePoints: number; friendPoints: number }> = {
  giveaway: { advocatePoints: 5, friendPoints: 1 },
  leaderboard: { advocatePoints: 10, friendPoints: 5 },
  waitlist: { advocatePoints: 10, friendPoints: 0 },
};

export function NewContest(props: { cred: Team }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [mode, setMode] = useState<(typeof MODES)[number]>('giveaway');
  const proposed = PROPOSED_POINTS[mode];
  return (
    <form
      class="inline"
      onSubmit={submitWith(setError, async (v) => {
        const c = (
          await must(
            api.POST('/api/v1/contests', {
              body: {
                title: v.title ?? '',
                mode: (v.mode ?? 'giveaway') as (typeof MODES)[number],
                status: 'draft',
                isEvergreen: true,
                referral: { advocatePoints: int(v.advocatePoints), friendPoints: int(v.friendPoints) },
              },
            }),
          )
        ).data;
        navigate(`/console/contests/${c.id}/settings`);
      })}
    >
      <label for="new-contest-title">New contest</label>
      <input id="new-contest-title" name="title" required maxlength={200} placeholder="Summer giveaway" />
      <label for="new-contest-mode">Mode</label>
      <select
        id="new-contest-mode"
        name="mode"
        onChange={(e: Event) => setMode((e.target as HTMLSelectElement).value as (typeof MODES)[number])}
      >
        {MODES.map((m) => (
          <option value={m} selected={m === mode}>
            {m}
          </option>
        ))}
      </select>
      {/* keyed by the mode: a new mode proposes its values again */}
      {(
        [
          ['advocatePoints', 'Referrer gets (points)'],
          ['friendPoints', 'Friend gets (points)'],
        ] as const
      ).flatMap(([name, label]) => [
        <label for={`new-contest-${name}`}>{label}</label>,
        <input
          key={`${name}-${mode}`}
          id={`new-contest-${name}`}
          name={name}
          type="number"
          min={0}
          required
          value={String(proposed[name])}
        />,
      ])}
      <button type="submit">Create contest</button>
      <ErrorLine error={error} />
    </form>
  );
}

export function ContestSettings(props: { cred: Team; contestId: string; onSaved: () => void }) {
  const api = apiClient(props.cred);
  const path = { params: { path: { contestId: props.contestId } } };
  const current = useLoad(async () => must(api.GET('/api/v1/contests/{contestId}/settings', path)), [props.contestId]);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const c = current.data?.data;
  if (current.error) return <ErrorLine error={current.error} />;
  if (!c) return null;
  return (
    <section aria-labelledby="settings-h">
      <h2 id="settings-h">Settings</h2>
      <form
        class="settings"
        onSubmit={async (e: Event) => {
          const v = formValues(e);
          setError(null);
          setSaved(false);
          try {
            await must(
              api.PATCH('/api/v1/contests/{contestId}', {
                ...path,
                body: {
                  title: v.title ?? '',
                  description: v.description ? v.description : null,
                  status: v.status as (typeof STATUSES)[number],
                  mode: v.mode as (typeof MODES)[number],
                  isEvergreen: v.isEvergreen === 'on',
                  startDate: fromLocal(v.startDate),
                  endDate: fromLocal(v.endDate),
                  requireEmailConfirmation: v.requireEmailConfirmation === 'on',
                  referral: {
                    advocatePoints: int(v.advocatePoints),
                    friendPoints: int(v.friendPoints),
                    creditOn: v.creditOn === 'confirm' ? 'confirm' : 'create',
                  },
                  risk: {
                    mode: (v.riskMode ?? 'flag') as 'flag' | 'hold' | 'block',
                    maxEntriesPerIpPerHour: int(v.maxEntriesPerIpPerHour),
                    maxReferralsPerHour: int(v.maxReferralsPerHour),
                  },
                  purchaseTracking: {
                    enabled: v.purchaseEnabled === 'on',
                    pointsPerPurchase: int(v.pointsPerPurchase),
                    pointsPerCurrencyUnit: Number(v.pointsPerCurrencyUnit ?? ''),
                  },
                  publicCacheSeconds: int(v.publicCacheSeconds),
                  publicSignup: v.publicSignup === 'on',
                  consentText: v.consentText?.trim() ? v.consentText.trim() : null,
                  landingUrl: v.landingUrl?.trim() ? v.landingUrl.trim() : null,
                  botCheck: v.botCheck === 'turnstile' ? 'turnstile' : 'off',
                  bonusActionsNeedEntryToken: v.bonusActionsNeedEntryToken === 'on',
                  imageUrl: v.imageUrl?.trim() ? v.imageUrl.trim() : null,
                  logoUrl: v.logoUrl?.trim() ? v.logoUrl.trim() : null,
                  rulesUrl: v.rulesUrl?.trim() ? v.rulesUrl.trim() : null,
                  privacyUrl: v.privacyUrl?.trim() ? v.privacyUrl.trim() : null,
                  pageLeaderboard: int(v.pageLeaderboard),
                  shareMessage: v.shareMessage ?? '',
                  shareChannels: CHANNELS.filter((ch) => v[`share-${ch}`] === 'on'),
                },
              }),
            );
            setSaved(true);
            current.reload();
            props.onSaved();
          } catch (err) {
            setError(messageOf(err));
          }
        }}
      >
        <fieldset>
          <legend>The contest</legend>
          <label for="s-title">Title</label>
          <input id="s-title" name="title" required maxlength={200} value={c.title} />
          <label for="s-description">Description</label>
          <input id="s-description" name="description" maxlength={5000} value={c.description ?? ''} />
          <label for="s-status">Status</label>
          <select id="s-status" name="status">
            {STATUSES.map((s) => (
              <option value={s} selected={c.status === s}>
                {s}
              </option>
            ))}
          </select>
          <label for="s-mode">Mode</label>
          <select id="s-mode" name="mode">
            {MODES.map((m) => (
              <option value={m} selected={c.mode === m}>
                {m}
              </option>
            ))}
          </select>
          <label>
            <input type="checkbox" name="isEvergreen" checked={c.isEvergreen} /> Evergreen (runs with no end)
          </label>
          <label for="s-start">Starts</label>
          <input id="s-start" name="startDate" type="datetime-local" value={toLocal(c.startDate)} />
          <label for="s-end">Ends</label>
          <input id="s-end" name="endDate" type="datetime-local" value={toLocal(c.endDate)} />
          <label>
            <input type="checkbox" name="requireEmailConfirmation" checked={c.requireEmailConfirmation} /> Entries
            confirm their email
          </label>
        </fieldset>
        <fieldset>
          <legend>Referrals</legend>
          <label for="s-adv">Points to the referrer</label>
          <input
            id="s-adv"
            name="advocatePoints"
            type="number"
            min={0}
            required
            value={String(c.referral.advocatePoints)}
          />
          <label for="s-friend">Points to the new entry</label>
          <input
            id="s-friend"
            name="friendPoints"
            type="number"
            min={0}
            required
            value={String(c.referral.friendPoints)}
          />
          <label for="s-credit">Credited</label>
          <select id="s-credit" name="creditOn">
            <option value="create" selected={c.referral.creditOn === 'create'}>
              when the entry is created
            </option>
            <option value="confirm" selected={c.referral.creditOn === 'confirm'}>
              when the entry confirms its email
            </option>
          </select>
        </fieldset>
        <fieldset>
          <legend>Risk rules</legend>
          <label for="s-risk">When an entry looks risky</label>
          <select id="s-risk" name="riskMode">
            <option value="flag" selected={c.risk.mode === 'flag'}>
              flag it only
            </option>
            <option value="hold" selected={c.risk.mode === 'hold'}>
              hold its referral points until approved
            </option>
            <option value="block" selected={c.risk.mode === 'block'}>
              refuse high-risk entries
            </option>
          </select>
          <label for="s-ip">Entries per address per hour before a flag</label>
          <input
            id="s-ip"
            name="maxEntriesPerIpPerHour"
            type="number"
            min={1}
            max={1000}
            required
            value={String(c.risk.maxEntriesPerIpPerHour)}
          />
          <label for="s-refs">Referrals per referrer per hour before a flag</label>
          <input
            id="s-refs"
            name="maxReferralsPerHour"
            type="number"
            min={1}
            max={1000}
            required
            value={String(c.risk.maxReferralsPerHour)}
          />
        </fieldset>
        <fieldset>
          <legend>Purchases</legend>
          <label>
            <input type="checkbox" name="purchaseEnabled" checked={c.purchaseTracking.enabled} /> Purchases earn points
          </label>
          <label for="s-ppp">Points per purchase</label>
          <input
            id="s-ppp"
            name="pointsPerPurchase"
            type="number"
            min={0}
            required
            value={String(c.purchaseTracking.pointsPerPurchase)}
          />
          <label for="s-ppu">Points per currency unit</label>
          <input
            id="s-ppu"
            name="pointsPerCurrencyUnit"
            type="number"
            min={0}
            step="any"
            required
            value={String(c.purchaseTracking.pointsPerCurrencyUnit)}
          />
        </fieldset>
        <fieldset>
          <legend>Pages that show it</legend>
          <label for="s-cache">Seconds a page's reads may lag (0: always exact; up to 300)</label>
          <input
            id="s-cache"
            name="publicCacheSeconds"
            type="number"
            min={0}
            max={300}
            required
            value={String(c.publicCacheSeconds)}
            aria-describedby="s-cache-help"
          />
          <p id="s-cache-help">
            Above 0, what a public key reads (the contest, its leaderboard, its bonus actions) may be up to that many
            seconds old, and costs no database work.
          </p>
        </fieldset>
        <fieldset>
          <legend>Sign-ups from a page</legend>
          <label>
            <input type="checkbox" name="publicSignup" checked={c.publicSignup} /> People can sign up with the public
            key (the sign-up widget)
          </label>
          <label for="s-consent">Consent a sign-up must agree to (empty: none asked)</label>
          <input id="s-consent" name="consentText" maxlength={2000} value={c.consentText ?? ''} />
          <label for="s-landing">The page that hosts the widget (https; emails link there)</label>
          <input id="s-landing" name="landingUrl" type="url" value={c.landingUrl ?? ''} placeholder="https://" />
          <label for="s-bot">Bot check</label>
          <select id="s-bot" name="botCheck">
            <option value="off" selected={c.botCheck === 'off'}>
              off
            </option>
            <option value="turnstile" selected={c.botCheck === 'turnstile'}>
              Cloudflare Turnstile
            </option>
          </select>
          <label>
            <input type="checkbox" name="bonusActionsNeedEntryToken" checked={c.bonusActionsNeedEntryToken} /> A page
            needs the visitor's own token to give them bonus points
          </label>
        </fieldset>
        <fieldset>
          <legend>Sharing</legend>
          <label for="s-image">Image of the hosted page and of link previews (https)</label>
          <input id="s-image" name="imageUrl" type="url" value={c.imageUrl ?? ''} placeholder="https://" />
          <label for="s-logo">Your logo, at the top of the hosted page (https)</label>
          <input id="s-logo" name="logoUrl" type="url" value={c.logoUrl ?? ''} placeholder="https://" />
          <label for="s-rules">Official rules, linked from the hosted page's footer (https)</label>
          <input id="s-rules" name="rulesUrl" type="url" value={c.rulesUrl ?? ''} placeholder="https://" />
          <label for="s-privacy">Privacy policy, linked from the hosted page's footer (https)</label>
          <input id="s-privacy" name="privacyUrl" type="url" value={c.privacyUrl ?? ''} placeholder="https://" />
          <label for="s-page-board">
            Leaderboard rows on the hosted page (0 to {PAGE_LEADERBOARD_MAX}, names masked)
          </label>
          <input
            id="s-page-board"
            name="pageLeaderboard"
            type="number"
            min={0}
            max={PAGE_LEADERBOARD_MAX}
            required
            value={String(c.pageLeaderboard)}
          />
          <label for="s-share-message">What the share buttons say ({'{{link}}'} is the visitor's link)</label>
          <input id="s-share-message" name="shareMessage" required maxlength={280} value={c.shareMessage} />
          <fieldset class="choices">
            <legend>Share buttons</legend>
            {CHANNELS.map((ch) => (
              <label>
                <input type="checkbox" name={`share-${ch}`} checked={c.shareChannels.includes(ch)} />{' '}
                {channelInWords(ch)}
              </label>
            ))}
          </fieldset>
          <p>
            The hosted page, <a href={`/c/${props.contestId}`}>/c/{props.contestId}</a>, exists while sign-ups from a
            page are on. Its look (colours, corners, font) is set in{' '}
            <a href={`/console/contests/${props.contestId}/embed`}>Embed</a>, beside a live preview.
          </p>
        </fieldset>
        <button type="submit">Save settings</button>
        {saved ? (
          <p role="status" class="ok">
            Saved.
          </p>
        ) : null}
        <ErrorLine error={error} />
      </form>
    </section>
  );
}
