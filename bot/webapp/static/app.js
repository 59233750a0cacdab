// The Spades (Piki) Mini App: draws the table the bot describes and sends taps back as
// moves. Every word comes from the bot (texts?code=…, and the state's lines);
// every decision (legal or not, whose turn) is the bot's: a refused tap shows
// the bot's reason.
(() => {
  'use strict';

  const tg = window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;
  const $ = (id) => document.getElementById(id);
  const app = $('app');
  const query = new URLSearchParams(location.search);
  const unsafe = (tg && tg.initDataUnsafe) || {};
  const initData = (tg && tg.initData) || '';
  const startParam = unsafe.start_param || query.get('tgWebAppStartParam') || '';
  const tableParam = query.get('t') || (/^t\d+$/.test(startParam) ? startParam.slice(1) : '');
  const recordParam = /^\d{1,4}$/.test(query.get('r') || '') ? Number(query.get('r')) : 0;
  const langCode = (unsafe.user && unsafe.user.language_code) || navigator.language || '';

  // Suit pictures (engine order: clubs, diamonds, hearts, spades), 100×100.
  const SUIT_PATHS = [
    'M50 6c-12 0-21 9-21 21 0 5 2 10 5 14-3-2-7-3-11-3C11 38 3 47 3 58s9 21 20 21c9 0 16-5 20-13-1 10-4 17-11 23h36c-7-6-10-13-11-23 4 8 11 13 20 13 11 0 20-10 20-21S89 38 77 38c-4 0-8 1-11 3 3-4 5-9 5-14 0-12-9-21-21-21z',
    'M50 4 88 50 50 96 12 50z',
    'M50 92C36 78 6 58 6 32 6 17 17 6 31 6c9 0 15 5 19 12 4-7 10-12 19-12 14 0 25 11 25 26 0 26-30 46-44 60z',
    'M50 4C38 22 8 38 8 60c0 14 11 24 24 24 7 0 12-3 15-7-1 8-4 14-10 19h26c-6-5-9-11-10-19 3 4 8 7 15 7 13 0 24-10 24-24C92 38 62 22 50 4z',
  ];
  const SVG = 'http://www.w3.org/2000/svg';

  let words = {};
  let ranks = [];
  let suits = '';
  let state = null;
  let clockOffset = 0; // the bot's clock minus ours, seconds
  let busy = false;
  let toastTimer = 0;
  let toastFor = ''; // the table the toast shown is about (tableKey)

  const word = (key) => words[key] || '';

  // ------------------------------------------------------------------ theme
  const THEME = {
    bg_color: '--bg',
    text_color: '--text',
    hint_color: '--hint',
    link_color: '--link',
    button_color: '--button',
    button_text_color: '--button-text',
    secondary_bg_color: '--secondary-bg',
    section_bg_color: '--section-bg',
    accent_text_color: '--accent',
    destructive_text_color: '--destructive',
  };

  function applyTheme() {
    const params = (tg && tg.themeParams) || {};
    const root = document.documentElement;
    const dark = tg && tg.colorScheme ? tg.colorScheme === 'dark'
      : window.matchMedia('(prefers-color-scheme: dark)').matches;
    root.dataset.scheme = dark ? 'dark' : 'light';
    for (const [name, variable] of Object.entries(THEME)) {
      if (params[name]) root.style.setProperty(variable, params[name]);
      else root.style.removeProperty(variable);
    }
    if (tg && params.bg_color) {
      try { tg.setHeaderColor('bg_color'); tg.setBackgroundColor('bg_color'); } catch (e) { /* older clients */ }
    }
  }

  function haptic(kind) {
    const h = tg && tg.HapticFeedback;
    if (!h || (tg.isVersionAtLeast && !tg.isVersionAtLeast('6.1'))) return;
    try {
      if (kind === 'move') h.impactOccurred('medium');
      else if (kind === 'error') h.notificationOccurred('error');
      else if (kind === 'turn') h.notificationOccurred('success');
      else h.selectionChanged();
    } catch (e) { /* not offered here */ }
  }

  // ---------------------------------------------------------------- network
  function auth() { return { Authorization: 'tma ' + initData }; }
  function tableQuery() { return tableParam ? '?t=' + encodeURIComponent(tableParam) : ''; }

  // A request the network holds longer than this is given up: a phone's
  // fetch can hang for minutes, and the page would sit pending all along.
  const CALL_TIMEOUT_MS = 15000;

  async function call(path, body) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), CALL_TIMEOUT_MS);
    const options = { headers: auth(), cache: 'no-store', signal: controller.signal };
    if (body) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    try {
      const response = await fetch('api/' + path, options);
      retrySoon(); // the bot answers: a stream lost meanwhile is tried again now
      let data = null;
      try { data = await response.json(); } catch (e) { data = null; }
      return { ok: response.ok, status: response.status, data };
    } catch (e) {
      return { ok: false, status: 0, data: null };
    } finally {
      clearTimeout(timer);
    }
  }

  // Server-Sent Events read with fetch (EventSource cannot send the
  // Authorization header). A dropped stream is opened again after a pause
  // that grows from RETRY_FIRST_MS to RETRY_MAX_MS (a browser's EventSource
  // waits about 3 s); the first event of every stream is the whole state, so
  // nothing missed meanwhile is lost. The pause is cut short when there is
  // reason to think the bot is back: the network is back, the page is shown
  // again, or a call was answered.
  const RETRY_FIRST_MS = 250;
  const RETRY_MAX_MS = 2000;
  let retryNow = null; // ends the pause before the next try

  function retrySoon() { if (retryNow) retryNow(); }

  function pause(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); retryNow = null; resolve(); }
      retryNow = done;
    });
  }

  async function stream() {
    window.addEventListener('online', retrySoon);
    document.addEventListener('visibilitychange', () => { if (!document.hidden) retrySoon(); });
    let delay = RETRY_FIRST_MS;
    for (;;) {
      try {
        const response = await fetch('api/events' + tableQuery(), { headers: auth(), cache: 'no-store' });
        if (response.status === 401 || response.status === 403) {
          const data = await response.json().catch(() => null);
          showMessage(data && data.text ? data.text : word('webapp-err-auth'));
          return;
        }
        if (!response.ok || !response.body) throw new Error('stream ' + response.status);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (onEvent(block)) { delay = RETRY_FIRST_MS; setConnected(true); }
          }
        }
      } catch (e) { /* lost: try again below */ }
      setConnected(false);
      await pause(delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }

  function onEvent(block) {
    let kind = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') kind = value;
      else if (field === 'data') data += (data ? '\n' : '') + value;
    }
    if (!data) return false;
    const payload = JSON.parse(data);
    if (kind === 'state') render(payload);
    else if (kind === 'gone') showMessage(payload.text);
    return true;
  }

  let connTimer = 0;
  function setConnected(ok) {
    if (ok) {
      clearTimeout(connTimer);
      connTimer = 0;
      $('conn').hidden = true;
      return;
    }
    // A blip shorter than a second is not worth a banner: it is shown a
    // second after the stream was lost (the tries meanwhile do not put it off).
    if (connTimer || !$('conn').hidden) return;
    connTimer = setTimeout(() => {
      connTimer = 0;
      $('conn').textContent = word('webapp-reconnecting');
      $('conn').hidden = false;
    }, 1000);
  }

  // ------------------------------------------------------------------ moves
  async function send(path, body) {
    if (busy || !state) return; // one move at a time: a tap while one is on its way is dropped
    busy = true;
    app.dataset.busy = '1';
    haptic('select');
    const result = await call(path, { t: state.table, game: state.game, seq: state.seq, ...body });
    busy = false;
    delete app.dataset.busy;
    if (result.ok && result.data) {
      haptic('move');
      render(result.data);
      return;
    }
    haptic('error');
    toast(result.data && result.data.text ? result.data.text : word('webapp-err-network'));
    if (result.status === 401) showMessage(result.data ? result.data.text : word('webapp-err-auth'));
    else if (!result.data || result.data.error === 'err-stale') refresh(true);
  }

  // The claim of the rest, once confirmed, for the table it was offered at: if a
  // move came meanwhile the bot refuses it as stale.
  async function claim(s) {
    if (busy || !(await confirmed(word('webapp-claim-confirm')))) return;
    send('claim', { game: s.game, seq: s.seq, n: s.claim.n });
  }

  // Telegram's own dialog where it has one (6.2 and later), else the browser's.
  function confirmed(text) {
    return new Promise((resolve) => {
      if (tg && tg.showConfirm && (!tg.isVersionAtLeast || tg.isVersionAtLeast('6.2'))) {
        try {
          tg.showConfirm(text, (ok) => resolve(Boolean(ok)));
          return;
        } catch (e) { /* not in this Telegram: the browser's below */ }
      }
      resolve(window.confirm(text));
    });
  }

  // The table as the bot has it, after a move it refused as stale or never
  // answered; the refusal's toast is about that table, and stays over it.
  async function refresh(keepToast) {
    const result = await call('state' + tableQuery());
    if (result.ok && result.data) render(result.data, keepToast);
  }

  // A toast tells why a tap did nothing, about the table shown when it came:
  // it goes when that table changes (a move, a new phase), and after a few
  // seconds anyway.
  const TOAST_MS = 3000;

  function tableKey(s) { return s ? [s.game, s.hand_no, s.seq, s.phase].join(':') : ''; }

  function toast(text) {
    const el = $('toast');
    el.textContent = text; // kept when hidden: the last reason, for whoever debugs
    el.hidden = false;
    toastFor = tableKey(state);
    clearTimeout(toastTimer);
    toastTimer = setTimeout(hideToast, TOAST_MS);
  }

  function hideToast() {
    clearTimeout(toastTimer);
    $('toast').hidden = true;
  }

  function showMessage(text) {
    const el = $('message');
    el.textContent = text;
    el.hidden = false;
    app.dataset.state = 'message';
  }

  // ------------------------------------------------------------------ cards
  function suitSvg(suit) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 100 100');
    svg.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', SUIT_PATHS[suit]);
    svg.appendChild(path);
    return svg;
  }

  function cardLabel(c) { return ranks[c % 13] + suits[Math.floor(c / 13)]; }

  function drawCard(c, tag) {
    const suit = Math.floor(c / 13);
    const rank = c % 13;
    const el = document.createElement(tag || 'div');
    el.className = 'card' + (suit === 1 || suit === 2 ? ' red' : '') + (rank >= 9 && rank <= 11 ? ' face' : '');
    el.dataset.card = String(c);
    el.setAttribute('aria-label', cardLabel(c));
    for (const where of ['top', 'bottom']) {
      const corner = document.createElement('span');
      corner.className = 'corner ' + where;
      const r = document.createElement('span');
      r.className = 'rank';
      r.textContent = ranks[rank];
      corner.append(r, suitSvg(suit));
      el.appendChild(corner);
    }
    if (rank >= 9 && rank <= 11) {
      const letter = document.createElement('span');
      letter.className = 'face-letter';
      letter.textContent = ranks[rank];
      el.appendChild(letter);
    }
    const pip = suitSvg(suit);
    pip.classList.add('pip');
    el.appendChild(pip);
    return el;
  }

  // A card as a small label (rank and suit), for the trick taken before.
  function drawMini(c) {
    const suit = Math.floor(c / 13);
    const el = document.createElement('div');
    el.className = 'mini' + (suit === 1 || suit === 2 ? ' red' : '');
    el.dataset.card = String(c);
    el.setAttribute('aria-label', cardLabel(c));
    const rank = document.createElement('span');
    rank.textContent = ranks[c % 13];
    el.append(rank, suitSvg(suit));
    return el;
  }

  function drawBack(tag) {
    const el = document.createElement(tag || 'div');
    el.className = 'card back';
    return el;
  }

  // ------------------------------------------------------------------ table
  // Seats around the felt, the person at the bottom, the others clockwise
  // (the next seat to the left, as at a real table).
  function seatAngle(s, n, me) {
    if (me < 0) me = 0; // a spectator sees the table from the first seat
    const k = ((s - me) % n + n) % n;
    return Math.PI / 2 + (k * 2 * Math.PI) / n;
  }

  function renderScore(s) {
    const box = $('score');
    box.replaceChildren();
    for (const side of s.score) {
      const el = document.createElement('div');
      el.className = 'side' + (side.seats.includes(s.seat) ? ' mine' : '');
      el.title = side.line;
      const who = document.createElement('span');
      who.className = 'who';
      who.textContent = side.name;
      const total = document.createElement('span');
      total.className = 'total';
      total.textContent = String(side.total);
      const bags = document.createElement('span');
      bags.className = 'bags';
      bags.textContent = '🎒' + side.bags;
      el.append(who, total, bags);
      box.appendChild(el);
    }
    $('hand-line').textContent = s.lines.hand;
    $('target-line').textContent = s.lines.target;
  }

  function renderSeats(s) {
    const box = $('seats');
    box.replaceChildren();
    for (let i = 0; i < s.players; i++) {
      const seat = s.seats[i];
      const a = seatAngle(i, s.players, s.seat);
      const el = document.createElement('div');
      el.className = 'seat' + (i === s.to_move ? ' turn' : '') + (i === s.seat ? ' me' : '')
        + (i === s.partner ? ' partner' : '') + (seat.computer ? ' computer' : '')
        + (seat.away ? ' away' : '') + (seat.blocked ? ' blocked' : '');
      el.dataset.seat = String(i);
      el.style.left = (50 + 35 * Math.cos(a)) + '%';
      el.style.top = (50 + 37 * Math.sin(a)) + '%';
      const name = document.createElement('div');
      name.className = 'name';
      name.textContent = seat.name;
      const sub = document.createElement('div');
      sub.className = 'sub';
      const tags = [seat.place];
      if (i === s.seat) tags.push(word('webapp-you'));
      else if (i === s.partner) tags.push(word('webapp-partner'));
      if (seat.dealer) tags.push(word('webapp-dealer'));
      sub.textContent = tags.join(' · ');
      const stats = document.createElement('div');
      stats.className = 'stats';
      const bid = document.createElement('span');
      bid.className = 'chip bid' + (seat.blind ? ' blind' : seat.nil ? ' nil' : '');
      bid.textContent = seat.bid_text;
      if (seat.bid !== null) bid.dataset.bid = String(seat.bid);
      stats.appendChild(bid);
      if (s.phase === 'play' || s.phase === 'over') {
        const tricks = document.createElement('span');
        tricks.className = 'chip tricks';
        tricks.textContent = word('webapp-tricks') + ' ' + seat.tricks;
        stats.appendChild(tricks);
      }
      const timer = document.createElement('div');
      timer.className = 'timer';
      el.append(name, sub, stats, timer);
      box.appendChild(el);
    }
  }

  function renderTrick(s, before) {
    const box = $('trick');
    const old = new Set();
    if (before && before.game === s.game && before.hand_no === s.hand_no) {
      for (const [seat, c] of before.trick) old.add(seat + ':' + c);
    }
    box.replaceChildren();
    const last = s.trick.length === 0 && s.last_trick;
    const pairs = last ? s.last_trick.cards : s.trick;
    box.classList.toggle('last', Boolean(last));
    pairs.forEach(([seat, c], i) => {
      const a = seatAngle(seat, s.players, s.seat);
      const el = drawCard(c);
      el.dataset.seat = String(seat);
      el.style.left = (50 + 11 * Math.cos(a)) + '%';
      el.style.top = (48 + 13 * Math.sin(a)) + '%';
      el.style.zIndex = String(i + 1);
      el.style.setProperty('--tilt', ((seat * 37) % 17 - 8) + 'deg');
      el.style.setProperty('--from-x', Math.round(90 * Math.cos(a)) + 'px');
      el.style.setProperty('--from-y', Math.round(90 * Math.sin(a)) + 'px');
      if (last && seat === s.last_trick.winner) el.classList.add('won');
      if (!last && !old.has(seat + ':' + c)) el.classList.add('fresh');
      box.appendChild(el);
    });
    const corner = $('last-trick');
    corner.replaceChildren();
    if (!last && s.last_trick) {
      corner.title = s.last_trick.text;
      for (const [seat, c] of s.last_trick.cards) {
        const el = drawMini(c);
        el.dataset.seat = String(seat);
        if (seat === s.last_trick.winner) el.classList.add('won');
        corner.appendChild(el);
      }
    }
    $('trick-caption').textContent = last ? s.last_trick.text : (s.lines.trick_no || '');
  }

  function renderStatus(s) {
    $('turn-line').textContent = s.lines.status || '';
    $('prompt').textContent = s.prompt || '';
    $('spades-line').textContent = s.phase === 'play' ? s.lines.spades : '';
    $('notes').textContent = (s.lines.notes || []).join(' ');
    tick();
  }

  function actionButton(text, className, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'action ' + className;
    b.textContent = text;
    b.addEventListener('click', onClick);
    return b;
  }

  function renderChoices(s) {
    const box = $('choices');
    box.replaceChildren();
    if (s.bids.length) {
      const grid = document.createElement('div');
      grid.className = 'bids';
      for (const bid of s.bids) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.a = String(bid.a);
        b.textContent = bid.text;
        if (!bid.ok) b.classList.add('dim');
        if (bid.text.length > 2) b.classList.add('wide');
        b.addEventListener('click', () => send('move', { action: bid.a }));
        grid.appendChild(b);
      }
      box.appendChild(grid);
    }
    if (s.blind || s.look || s.claim) {
      const row = document.createElement('div');
      row.className = 'actions';
      if (s.blind) {
        const b = actionButton(s.blind.text, 'blind', () => send('move', { action: s.blind.a }));
        b.dataset.a = String(s.blind.a);
        row.appendChild(b);
      }
      if (s.look) row.appendChild(actionButton(s.look.text, 'look secondary', () => send('look', {})));
      if (s.claim) row.appendChild(actionButton(word('btn-claim'), 'claim secondary', () => claim(s)));
      box.appendChild(row);
    }
    if (s.exchange) {
      for (const text of [s.exchange.passed_text, s.exchange.received_text]) {
        if (!text) continue;
        const note = document.createElement('div');
        note.className = 'exchange-note';
        note.textContent = text;
        box.appendChild(note);
      }
    }
  }

  // ------------------------------------------------------------------- hand
  // A tap acts on what the finger went down on, never on a neighbour that a
  // new state moved under it (good card apps do the same):
  // - a card keeps its element from one state to the next (found by the
  //   card), so the element that took the pointerdown is that card;
  // - while a finger (or the mouse button) is down on the hand or the
  //   choices, a new state waits: nothing is redrawn under it until the tap
  //   is over (at most HOLD_MAX_MS);
  // - the tap's click goes to the element the finger went down on, wherever
  //   it lands (the page can still move under a finger: a turned phone
  //   wraps the lines above the hand); a mouse let go elsewhere is no click;
  // - a card that moved less than SETTLE_MS before the finger came down (a
  //   new state, a turned phone) does not take the tap: the finger was aimed
  //   at what lay there before. #hand[data-settling] is set meanwhile.
  const SETTLE_MS = 350; // the cards' slide (0.18 s) and a person's reaction to it
  const HOLD_AFTER_UP_MS = 300; // after the finger lifts, its click is waited for this long
  const HOLD_MAX_MS = 3000; // a finger left resting on a card holds the table no longer
  const handCards = new Map(); // 'c12' (a card), 'b3' (the fourth face down) → its element
  const placed = new WeakMap(); // a card's element → {spot, movedAt}: where it lies, since when
  let press = null; // {el, settled, moved, touch}: what the last pointer went down on
  let held = false; // a pointer is down: states wait (below)
  let heldState = null; // {s, keepToast}: the newest state that waited
  let relayoutWaits = false; // the viewport changed while held
  let holdTimer = 0;
  let settleTimer = 0;

  function hold() {
    held = true;
    clearTimeout(holdTimer);
    holdTimer = setTimeout(release, HOLD_MAX_MS);
  }

  // The tap is over: what waited is drawn.
  function release() {
    clearTimeout(holdTimer);
    if (!held) return;
    held = false;
    const waiting = heldState;
    const relayout = relayoutWaits;
    heldState = null;
    relayoutWaits = false;
    if (waiting) render(waiting.s, waiting.keepToast);
    else if (relayout && state) renderHand(state);
  }

  // The hand laid out again (a resized viewport), once no finger is down.
  function relayoutHand() {
    if (held) relayoutWaits = true;
    else if (state) renderHand(state);
  }

  // A click (before any element has it): a pointer's goes to what the
  // pointer went down on (above). One from the keyboard (detail 0), or handed
  // on here, is the focused element's own.
  function onClick(e) {
    if (e.detail === 0) return;
    const p = press;
    press = null;
    if (p === null) return; // not on the hand or the choices
    const ok = p.settled && !p.moved && p.el.isConnected;
    if (ok && p.el.contains(e.target)) return; // where it went down: its own listener acts
    e.stopPropagation();
    e.preventDefault();
    if (ok && p.touch) p.el.click();
    release();
  }

  function setUpTaps() {
    for (const box of [$('hand'), $('choices')]) {
      box.addEventListener('pointerdown', (e) => {
        if (!e.isPrimary) return;
        const el = e.target.closest('#hand .card, #choices button');
        const spot = el && placed.get(el);
        const settled = !spot || performance.now() - spot.movedAt >= SETTLE_MS;
        press = el ? { el, settled, moved: false, touch: e.pointerType !== 'mouse' } : null;
        hold();
      });
      // After the card's or the button's own click (the target's listener runs first).
      box.addEventListener('click', release);
    }
    window.addEventListener('click', onClick, true);
    // On the window: a mouse let go outside the hand ends the hold too.
    window.addEventListener('pointerup', (e) => {
      if (!e.isPrimary || !held) return;
      clearTimeout(holdTimer);
      holdTimer = setTimeout(release, HOLD_AFTER_UP_MS);
    });
    window.addEventListener('pointercancel', (e) => {
      if (!e.isPrimary) return;
      press = null;
      release();
    });
  }

  function renderHand(s) {
    const box = $('hand');
    const note = $('hand-note');
    if (note) note.remove();
    const width = box.clientWidth || 360;
    const probe = drawBack();
    probe.style.visibility = 'hidden';
    probe.style.width = 'var(--card-w)';
    box.appendChild(probe);
    const cardW = probe.getBoundingClientRect().width || 64;
    probe.remove();
    const hidden = s.hidden > 0;
    const cards = hidden ? Array.from({ length: s.hidden }, () => -1) : s.hand;
    const n = cards.length;
    const playable = new Set(s.playable);
    const picked = new Set(s.exchange ? s.exchange.picking : []);
    const gapAt = [];
    for (let i = 1; i < n; i++) {
      gapAt.push(!hidden && Math.floor(cards[i] / 13) !== Math.floor(cards[i - 1] / 13));
    }
    const gaps = gapAt.filter(Boolean).length;
    const gap = 6;
    const margin = 24; // the edge cards turn outwards: room for their corners
    const room = width - 2 * margin - cardW - gaps * gap;
    const step = n > 1 ? Math.min(cardW * 0.7, room / (n - 1)) : 0;
    const total = cardW + step * (n - 1) + gaps * gap;
    let x = (width - total) / 2;
    const mid = (n - 1) / 2;
    const spread = Math.min(1.8, 22 / n);
    // Where the hand lies on the screen: the parts above it can move it too.
    const origin = box.getBoundingClientRect();
    const at = origin.left.toFixed(1) + ',' + origin.top.toFixed(1) + ',' + width + ' ';
    const now = performance.now();
    let settling = 0;
    const kept = new Set();
    cards.forEach((c, i) => {
      if (i > 0) x += step + (gapAt[i - 1] ? gap : 0);
      const key = hidden ? 'b' + i : 'c' + c;
      kept.add(key);
      let el = handCards.get(key);
      if (!el) {
        el = hidden ? drawBack('button') : drawCard(c, 'button');
        el.type = 'button';
        if (!hidden) el.addEventListener('click', () => send('move', { action: c }));
        handCards.set(key, el);
      }
      const t = i - mid;
      const lift = !hidden && s.my_turn && playable.has(c) ? -10 : 0;
      const y = 14 + t * t * 0.35 + lift + (picked.has(c) ? -16 : 0);
      el.style.transform = 'translate(' + x.toFixed(1) + 'px, ' + y.toFixed(1) + 'px) rotate(' + (t * spread).toFixed(2) + 'deg)';
      el.style.zIndex = String(i + 1);
      if (!hidden) {
        el.classList.toggle('playable', playable.has(c));
        el.classList.toggle('dim', !playable.has(c) && s.my_turn && s.playable.length > 0);
        el.classList.toggle('picked', picked.has(c));
      }
      const spot = at + el.style.transform + ' ' + el.style.zIndex;
      const before = placed.get(el);
      if (!before || before.spot !== spot) {
        placed.set(el, { spot, movedAt: now });
        if (press && press.el === el) press.moved = true;
      }
      settling = Math.max(settling, SETTLE_MS - (now - placed.get(el).movedAt));
      box.appendChild(el); // in the hand's order (an element kept is moved, not copied)
    });
    for (const [key, el] of handCards) {
      if (!kept.has(key)) {
        el.remove();
        handCards.delete(key);
      }
    }
    clearTimeout(settleTimer);
    if (settling > 0) {
      box.dataset.settling = '1';
      settleTimer = setTimeout(() => { delete box.dataset.settling; }, settling);
    } else {
      delete box.dataset.settling;
    }
    if (hidden) {
      const el = document.createElement('div');
      el.id = 'hand-note';
      el.textContent = word('webapp-cards-down');
      box.appendChild(el);
    }
  }

  function render(s, keepToast) {
    if (held) { // a finger is down: nothing moves under it; the newest state is drawn after
      const same = heldState && heldState.keepToast && tableKey(heldState.s) === tableKey(s);
      heldState = { s, keepToast: Boolean(keepToast) || Boolean(same) };
      return;
    }
    if (state && s.game === state.game && s.seq < state.seq) return; // older than what is shown
    const before = state;
    state = s;
    if (!$('toast').hidden && tableKey(s) !== toastFor) {
      if (keepToast) toastFor = tableKey(s);
      else hideToast();
    }
    // Every state's "now" was read at the bot before it travelled here, so
    // each gives the bot's clock a little behind: the largest is the nearest
    // (a 1-minute turn then starts at 1:00, not 1:01). A change of more than
    // a few seconds is the clock itself changed: taken as it comes.
    const offset = s.now - Date.now() / 1000;
    clockOffset = before && Math.abs(offset - clockOffset) < 5 ? Math.max(clockOffset, offset) : offset;
    app.dataset.state = 'ready';
    app.dataset.seq = String(s.seq);
    app.dataset.phase = s.phase;
    app.dataset.hand = String(s.hand_no);
    app.classList.toggle('my-turn', s.my_turn);
    app.dataset.spectator = s.spectator ? '1' : '';
    const done = handsDone(s);
    $('record-open').hidden = done === 0;
    $('record-open').textContent = word('webapp-record');
    renderScore(s);
    renderSeats(s);
    renderTrick(s, before);
    renderStatus(s);
    renderChoices(s);
    renderHand(s);
    if (s.my_turn && !(before && before.my_turn && before.game === s.game && before.seq === s.seq)) haptic('turn');
  }

  // ----------------------------------------------------------------- record
  // A finished hand, asked of the bot once, then stepped through here: the
  // deal and the bids, then each trick with the cards still held after it.
  let record = null;
  let recordStep = 0;

  function handsDone(s) { return s.phase === 'over' ? s.hand_no + 1 : s.hand_no; }

  async function openRecord(hand) {
    const params = new URLSearchParams();
    if (tableParam) params.set('t', tableParam);
    params.set('h', String(hand));
    const result = await call('record?' + params.toString());
    if (!result.ok || !result.data) {
      toast(result.data && result.data.text ? result.data.text : word('webapp-err-network'));
      return;
    }
    record = result.data;
    recordStep = 0;
    app.dataset.record = String(record.hand);
    renderRecord();
  }

  function closeRecord() {
    record = null;
    delete app.dataset.record;
    $('record').hidden = true;
    relayoutHand();
  }

  function renderRecord() {
    const r = record;
    $('record').hidden = false;
    $('record').dataset.step = String(recordStep);
    $('record-title').textContent = r.title;
    const played = new Set();
    for (let k = 0; k < recordStep; k++) for (const [, c] of r.tricks[k].cards) played.add(c);
    const trick = recordStep > 0 ? r.tricks[recordStep - 1] : null;
    const seats = $('record-seats');
    seats.replaceChildren();
    r.seats.forEach((seat, i) => {
      const el = document.createElement('div');
      el.className = 'record-seat' + (trick && trick.winner === i ? ' won' : '');
      el.dataset.seat = String(i);
      const who = document.createElement('div');
      who.className = 'who';
      // A computer is named by its place already.
      who.textContent = (seat.name.includes(seat.place) ? seat.name : seat.name + ' · ' + seat.place) + ' ';
      const bid = document.createElement('span');
      bid.className = 'bid';
      bid.textContent = seat.bid_text;
      who.appendChild(bid);
      const cards = document.createElement('div');
      cards.className = 'record-cards';
      const held = recordStep === 0 ? seat.dealt : seat.start.filter((c) => !played.has(c));
      for (const c of held) cards.appendChild(drawMini(c));
      el.append(who, cards);
      seats.appendChild(el);
    });
    const box = $('record-trick');
    box.replaceChildren();
    if (trick) {
      for (const [seat, c] of trick.cards) {
        const one = document.createElement('span');
        one.className = 'played';
        const mini = drawMini(c);
        if (seat === trick.winner) mini.classList.add('won');
        const name = document.createElement('span');
        name.textContent = r.seats[seat].name;
        one.append(name, mini);
        box.appendChild(one);
      }
      const caption = document.createElement('div');
      caption.className = 'caption';
      caption.textContent = trick.text;
      box.appendChild(caption);
    }
    $('record-step').textContent = trick ? trick.step : word('webapp-record-start');
    $('record-score').textContent = recordStep === r.tricks.length ? r.score.join('\n') : '';
    $('record-prev').disabled = recordStep === 0;
    $('record-next').disabled = recordStep === r.tricks.length;
    $('record-hand-prev').disabled = r.hand <= 1;
    $('record-hand-next').disabled = r.hand >= r.hands_done;
  }

  function setUpRecord() {
    $('record-prev').textContent = word('webapp-record-prev');
    $('record-next').textContent = word('webapp-record-next');
    $('record-hand-prev').textContent = word('webapp-record-prev');
    $('record-hand-next').textContent = word('webapp-record-next');
    $('record-close').textContent = word('webapp-record-close');
    $('record-open').addEventListener('click', () => { if (state) openRecord(handsDone(state)); });
    $('record-close').addEventListener('click', closeRecord);
    $('record-prev').addEventListener('click', () => { if (record && recordStep > 0) { recordStep--; renderRecord(); } });
    $('record-next').addEventListener('click', () => {
      if (record && recordStep < record.tricks.length) { recordStep++; renderRecord(); }
    });
    $('record-hand-prev').addEventListener('click', () => { if (record && record.hand > 1) openRecord(record.hand - 1); });
    $('record-hand-next').addEventListener('click', () => {
      if (record && record.hand < record.hands_done) openRecord(record.hand + 1);
    });
  }

  // ------------------------------------------------------------------ clock
  // One countdown on the screen: the time left to whoever is to move, in
  // their seat.
  function clockText(left) {
    const whole = Math.max(0, Math.ceil(left));
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const sec = String(whole % 60).padStart(2, '0');
    return h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + sec : m + ':' + sec;
  }

  function tick() {
    const active = document.querySelector('.seat.turn .timer');
    if (!active) return;
    if (!state || state.due_at == null) { active.textContent = ''; return; }
    const left = state.due_at - (Date.now() / 1000 + clockOffset);
    active.textContent = '⏱ ' + clockText(left);
    active.classList.toggle('low', left <= 10);
  }

  // ------------------------------------------------------------------ start
  async function loadWords() {
    try {
      const response = await fetch('texts?code=' + encodeURIComponent(langCode));
      const data = await response.json();
      words = data.texts;
      ranks = data.ranks;
      suits = data.suits;
      document.documentElement.lang = data.lang;
      document.title = word('webapp-title');
    } catch (e) { /* the page still works; only words are missing */ }
  }

  async function main() {
    applyTheme();
    if (tg) {
      tg.onEvent('themeChanged', applyTheme);
      tg.onEvent('viewportChanged', relayoutHand);
      tg.ready();
      tg.expand();
    }
    window.addEventListener('resize', relayoutHand);
    await loadWords();
    if (!initData) { showMessage(word('webapp-no-telegram')); return; }
    const first = await call('state' + tableQuery());
    if (!first.ok || !first.data) {
      showMessage(first.data && first.data.text ? first.data.text : word('webapp-err-network'));
      return;
    }
    render(first.data);
    setUpTaps();
    setUpRecord();
    if (recordParam) openRecord(recordParam);
    setInterval(tick, 250);
    stream();
  }

  main();
})();
