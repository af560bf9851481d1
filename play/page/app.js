// The page's side of `patina web`: draws the server's game state on a chessground board and
// sends the person's moves. The server decides everything: legality, the engine's moves, the end.
import { Chessground } from '/chessground/chessground.min.js';

const $ = (id) => document.getElementById(id);
let state = null;
let orientation = 'white';
let poll = null;
let pollFailed = false;

const cg = Chessground($('board'), {
  movable: { free: false, showDests: true, events: { after: onMove } },
  premovable: { enabled: false },
  highlight: { lastMove: true, check: true },
  draggable: { showGhost: true },
});
// For tests and the curious: the last state the server sent.
window.patina = { cg, state: null };

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data;
  try {
    data = await response.json();
  } catch {
    data = { error: `the server answered ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.error || `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function showError(message) {
  $('error').textContent = message || '';
  $('error').hidden = !message;
}

function render(next) {
  state = next;
  window.patina.state = next;
  // Per tab: sessionStorage is not shared between tabs, so each tab keeps its own game.
  sessionStorage.setItem('patina-session', next.session);
  cg.set({
    fen: next.fen,
    orientation,
    turnColor: next.turn,
    lastMove: next.lastMove || undefined,
    check: next.check,
    autoCastle: !next.chess960,
    movable: {
      color: next.yourMove ? next.human : undefined,
      dests: new Map(Object.entries(next.dests)),
    },
  });
  $('status').textContent = next.status;
  const info = next.info;
  $('score').textContent = info ? info.score : '–';
  $('depth').textContent = info ? `depth ${info.depth}, ${info.nodes} nodes` : '';
  $('pv').textContent = info ? info.pv : '';
  renderEvalBar(info ? info.eval : 0);
  renderMoves(next);
  $('undo').disabled = next.moves.length === 0;
  $('pgn').href = `/api/pgn?session=${next.session}`;
  clearTimeout(poll);
  if (next.thinking) poll = setTimeout(refresh, 250);
}

function renderEvalBar(cp) {
  // A logistic curve, as lichess draws it: four pawns up fills most of the bar.
  const white = 100 / (1 + Math.exp(-0.004 * cp));
  $('evalfill').style.height = `${white}%`;
  // White's share grows from the side White plays from.
  $('evalbar').classList.toggle('black-bottom', orientation === 'black');
}

function renderMoves(s) {
  const list = $('moves');
  list.replaceChildren();
  let number = s.firstMoveNumber;
  let row = null;
  s.moves.forEach((san, i) => {
    const white = (i % 2 === 0) === (s.firstTurn === 'white');
    if (white || row === null) {
      row = document.createElement('li');
      row.value = number;
      const first = document.createElement('span');
      first.textContent = white ? '' : '…';
      row.append(first, document.createElement('span'));
      list.append(row);
    }
    row.children[white ? 0 : 1].textContent = san;
    if (!white) {
      number += 1;
      row = null;
    }
  });
  list.scrollTop = list.scrollHeight;
}

async function refresh() {
  try {
    render(await api('GET', `/api/state?session=${state.session}`));
    if (pollFailed) showError('');
    pollFailed = false;
  } catch (e) {
    showError(e.message);
    // A poll the server turned away (busy, a dropped connection) is tried again while the
    // engine thinks, else the page would wait for its move for ever; an ended game (404) is not.
    pollFailed = true;
    if (state.thinking && e.status !== 404) {
      clearTimeout(poll);
      poll = setTimeout(refresh, 1000);
    }
  }
}

function onMove(orig, dest) {
  const piece = cg.state.pieces.get(dest);
  if (piece && piece.role === 'pawn' && (dest[1] === '8' || dest[1] === '1')) {
    askPromotion(orig, dest, piece.color);
  } else {
    send(orig + dest);
  }
}

function askPromotion(orig, dest, color) {
  const box = $('promotion');
  for (const piece of box.querySelectorAll('piece')) {
    piece.classList.remove('white', 'black');
    piece.classList.add(color);
  }
  box.hidden = false;
  for (const button of box.querySelectorAll('button')) {
    button.onclick = () => {
      box.hidden = true;
      send(orig + dest + button.dataset.role);
    };
  }
}

async function send(move) {
  showError('');
  try {
    render(await api('POST', '/api/move', { session: state.session, move }));
  } catch (e) {
    showError(e.message);
    render(state);
  }
}

async function newGame(event) {
  event?.preventDefault();
  showError('');
  const fen = $('fen').value.trim();
  try {
    render(await api('POST', '/api/new', {
      session: state?.session ?? null,
      color: $('color').value,
      movetime: Number($('movetime').value),
      chess960: $('chess960').checked,
      fen: fen || null,
    }));
    orientation = state.human;
    render(state);
  } catch (e) {
    showError(e.message);
  }
}

$('newgame').addEventListener('submit', newGame);
$('flip').addEventListener('click', () => {
  orientation = orientation === 'white' ? 'black' : 'white';
  render(state);
});
$('undo').addEventListener('click', async () => {
  showError('');
  $('promotion').hidden = true;
  try {
    render(await api('POST', '/api/undo', { session: state.session }));
  } catch (e) {
    showError(e.message);
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !$('promotion').hidden) {
    $('promotion').hidden = true;
    render(state);
  }
});

// Resume this tab's game after a reload; start one if the server no longer has it.
(async () => {
  const session = sessionStorage.getItem('patina-session');
  if (session) {
    try {
      const resumed = await api('GET', `/api/state?session=${session}`);
      orientation = resumed.human;
      render(resumed);
      return;
    } catch {
      sessionStorage.removeItem('patina-session');
    }
  }
  await newGame();
})();
