// The page's side of `patina web`: draws the server's game state on a chessground board and
// sends the person's moves. The server decides everything: legality, the engine's moves, the
// clocks, the end. The page only chooses which of the game's positions to show.
import { Chessground } from '/chessground/chessground.min.js';

const $ = (id) => document.getElementById(id);
let state = null;
// When the state arrived, to run the clock between two states.
let stateTime = 0;
let orientation = 'white';
// The position shown, as a number of moves played; `null` follows the game.
let shown = null;
let poll = null;
// The board's last settings, to leave it alone when they did not change.
let drawnBoard = null;
// The moves the list shows and the one marked, to leave the list alone when they did not change.
let listedMoves = null;
let markedPly = null;
let pollFailed = false;
// When the page last asked the server about a clock that reached zero.
let flagAsked = 0;

const cg = Chessground($('board'), {
  movable: { free: false, showDests: true, events: { after: onMove } },
  premovable: { enabled: false },
  highlight: { lastMove: true, check: true },
  draggable: { showGhost: true },
});
// For tests and the curious: the last state the server sent, the position shown, and how many
// games this page started.
window.patina = { cg, state: null, shownPly: () => shownPly(), started: 0 };

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

function livePly() {
  return state.moves.length;
}

// In analysis the server's analysed position is the one shown.
function shownPly() {
  if (state.analysis !== null) return state.analysis;
  return shown === null ? livePly() : shown;
}

function render(next) {
  const moved = !state || next.moves.length !== state.moves.length || next.session !== state.session;
  state = next;
  stateTime = performance.now();
  window.patina.state = next;
  // Per tab: sessionStorage is not shared between tabs, so each tab keeps its own game.
  sessionStorage.setItem('patina-session', next.session);
  if (shown !== null && shown >= livePly()) shown = null;
  if (moved) clearHint();
  renderBoard();
  $('status').textContent = next.status;
  renderMoves();
  renderClocks();
  const analysing = next.analysis !== null;
  $('undo').disabled = next.moves.length === 0 && !next.end;
  $('hintbutton').disabled = !next.yourMove;
  $('resign').disabled = analysing || next.end !== null;
  $('analyse').textContent = analysing ? 'Play on' : 'Analyse';
  $('analyse').title = analysing
    ? 'Play Patina from the game’s last position: you take the side to move'
    : 'Patina analyses the position shown and plays no moves; the clocks stop';
  $('pgn').href = `/api/pgn?session=${next.session}`;
  clearTimeout(poll);
  if (next.searching) poll = setTimeout(refresh, 250);
}

// The board at the position shown; moves only at the game's live position.
function renderBoard() {
  const ply = shownPly();
  const position = state.positions[ply];
  const live = ply === livePly();
  const board = {
    fen: position.fen,
    orientation,
    turnColor: live ? state.turn : (ply % 2 === 0) === (state.firstTurn === 'white') ? 'white' : 'black',
    lastMove: position.lastMove || undefined,
    check: position.check,
    autoCastle: !state.chess960,
    movable: {
      color: live && state.yourMove ? (state.analysis !== null ? state.turn : state.human) : undefined,
      dests: live ? state.dests : {},
    },
  };
  // Setting the board drops a piece the person has picked up: only do it when it changed
  // (a poll for the score changes nothing on it).
  const key = JSON.stringify(board);
  if (key !== drawnBoard) {
    drawnBoard = key;
    cg.set({ ...board, movable: { ...board.movable, dests: new Map(Object.entries(board.movable.dests)) } });
  }
  renderEvaluation(state.evaluations[ply]);
  $('shown').textContent = live ? '' : `move ${ply} of ${livePly()}`;
  $('first').disabled = $('prev').disabled = ply === 0;
  $('next').disabled = $('last').disabled = live;
}

function renderEvaluation(evaluation) {
  $('score').textContent = evaluation ? evaluation.score : '–';
  $('depth').textContent = evaluation && evaluation.depth !== null
    ? `depth ${evaluation.depth}, ${evaluation.nodes} nodes` : '';
  $('pv').textContent = evaluation ? evaluation.pv : '';
  // An unknown score (one being searched) leaves the bar where it was.
  if (evaluation) renderEvalBar(evaluation.eval);
  // White's share grows from the side White plays from.
  $('evalbar').classList.toggle('black-bottom', orientation === 'black');
}

function renderEvalBar(cp) {
  // A logistic curve, as lichess draws it: four pawns up fills most of the bar.
  const white = 100 / (1 + Math.exp(-0.004 * cp));
  $('evalfill').style.height = `${white}%`;
}

// The move list, rebuilt only when the moves change: a poll must not swap a button away under a
// click. The position shown is marked.
function renderMoves() {
  const list = $('moves');
  const moves = JSON.stringify([state.session, state.moves]);
  const current = shownPly();
  if (moves === listedMoves && current === markedPly) return;
  if (moves !== listedMoves) {
    listedMoves = moves;
    listMoves(list);
  }
  markedPly = current;
  for (const button of list.querySelectorAll('button.move')) {
    button.classList.toggle('current', Number(button.dataset.ply) === current);
  }
  // Scroll the list, not the page, to the position shown.
  const currentButton = list.querySelector('.current');
  if (currentButton) list.scrollTop = currentButton.offsetTop - list.clientHeight / 2;
}

function listMoves(list) {
  list.replaceChildren();
  let number = state.firstMoveNumber;
  let row = null;
  state.moves.forEach((san, i) => {
    const white = (i % 2 === 0) === (state.firstTurn === 'white');
    if (white || row === null) {
      row = document.createElement('li');
      row.value = number;
      const first = document.createElement('span');
      first.textContent = white ? '' : '…';
      row.append(first, document.createElement('span'));
      list.append(row);
    }
    const button = document.createElement('button');
    button.className = 'move';
    button.textContent = san;
    button.dataset.ply = i + 1;
    button.addEventListener('click', () => showPly(i + 1));
    row.children[white ? 0 : 1].replaceChildren(button);
    if (!white) {
      number += 1;
      row = null;
    }
  });
}

// The clocks, run down locally between two states from the server.
function renderClocks() {
  const clock = state && state.clock;
  for (const id of ['clock-top', 'clock-bottom']) $(id).hidden = !clock;
  if (!clock) return;
  const elapsed = performance.now() - stateTime;
  const bottom = orientation;
  const top = bottom === 'white' ? 'black' : 'white';
  for (const [id, color] of [['clock-top', top], ['clock-bottom', bottom]]) {
    const running = clock.running === color;
    const left = Math.max(0, clock[color] - (running ? elapsed : 0));
    const side = color === 'white' ? 'White' : 'Black';
    const who = state.analysis === null ? (color === state.human ? 'You' : 'Patina') : side;
    const element = $(id);
    element.textContent = `${who} ${clockText(left)}`;
    element.classList.toggle('running', running);
    element.classList.toggle('low', left < 20000);
    // At zero the server says whose flag fell; ask it, not more than twice a second.
    if (running && left === 0 && performance.now() - flagAsked > 500) {
      flagAsked = performance.now();
      refresh();
    }
  }
}

function clockText(ms) {
  const tenths = Math.floor(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = Math.floor(tenths / 10) % 60;
  const padded = String(seconds).padStart(2, '0');
  // Tenths in the last ten seconds, when they matter.
  return ms < 10000 ? `${minutes}:${padded}.${tenths % 10}` : `${minutes}:${padded}`;
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
    if (state.searching && e.status !== 404) {
      clearTimeout(poll);
      poll = setTimeout(refresh, 1000);
    }
  }
}

// Shows the position after `ply` moves; in analysis, Patina analyses it.
async function showPly(ply) {
  const target = Math.max(0, Math.min(ply, livePly()));
  if (state.analysis !== null) {
    await request('/api/analyse', { ply: target });
    return;
  }
  shown = target === livePly() ? null : target;
  clearHint();
  renderBoard();
  renderMoves();
}

function onMove(orig, dest) {
  // The board moved the piece itself: the next state is drawn whatever it holds.
  drawnBoard = null;
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

// POSTs the session and `fields` to `path` and draws the answer; an error is shown instead.
async function request(path, fields = {}) {
  showError('');
  try {
    const answer = await api('POST', path, { session: state.session, ...fields });
    render(answer);
    return answer;
  } catch (e) {
    showError(e.message);
    render(state);
    return null;
  }
}

function send(move) {
  return request('/api/move', { move });
}

function clearHint() {
  $('hint').hidden = true;
  cg.setAutoShapes([]);
}

// The new-game settings: colour, Patina's time (a clock, or a time per move) and rating.
function settings() {
  const [kind, value] = $('pace').value.split(':');
  return {
    session: state?.session ?? null,
    color: $('color').value,
    rating: $('rating').value,
    clock: kind === 'clock' ? value : null,
    movetime: kind === 'movetime' ? Number(value) : null,
  };
}

async function start(fields) {
  showError('');
  try {
    shown = null;
    render(await api('POST', '/api/new', { ...settings(), ...fields }));
    orientation = state.analysis === null ? state.human : orientation;
    render(state);
    window.patina.started += 1;
  } catch (e) {
    showError(e.message);
  }
}

$('newgame').addEventListener('submit', (event) => {
  event.preventDefault();
  const fen = $('fen').value.trim();
  start({ chess960: $('chess960').checked, fen: fen || null });
});
$('import').addEventListener('submit', (event) => {
  event.preventDefault();
  start({ pgn: $('pgntext').value });
});
$('flip').addEventListener('click', () => {
  orientation = orientation === 'white' ? 'black' : 'white';
  render(state);
});
$('undo').addEventListener('click', () => {
  $('promotion').hidden = true;
  shown = null;
  request('/api/undo');
});
$('hintbutton').addEventListener('click', async () => {
  shown = null;
  const answer = await request('/api/hint');
  if (answer && answer.hint) {
    $('hint').textContent = `Hint: ${answer.hint.san}`;
    $('hint').hidden = false;
    cg.setAutoShapes([{ orig: answer.hint.from, dest: answer.hint.to, brush: 'green' }]);
  }
});
$('resign').addEventListener('click', () => request('/api/resign'));
$('analyse').addEventListener('click', () => {
  if (state.analysis === null) {
    request('/api/analyse', { ply: shownPly() });
  } else {
    shown = null;
    request('/api/continue');
  }
});
$('first').addEventListener('click', () => showPly(0));
$('prev').addEventListener('click', () => showPly(shownPly() - 1));
$('next').addEventListener('click', () => showPly(shownPly() + 1));
$('last').addEventListener('click', () => showPly(livePly()));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !$('promotion').hidden) {
    $('promotion').hidden = true;
    render(state);
    return;
  }
  if (!state || event.target.closest('input, textarea, select')) return;
  const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
  if (step) showPly(shownPly() + step);
  if (event.key === 'Home') showPly(0);
  if (event.key === 'End') showPly(livePly());
});
setInterval(renderClocks, 100);

// The ratings Patina plays at, as the server names them.
async function loadRatings() {
  const select = $('rating');
  select.replaceChildren(...(await api('GET', '/api/ratings')).map(({ name, elo }) => {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = elo === null ? name : `${name} (${elo})`;
    option.selected = elo === null;
    return option;
  }));
}

// Resume this tab's game after a reload; start one if the server no longer has it.
(async () => {
  try {
    await loadRatings();
  } catch (e) {
    showError(e.message);
  }
  const session = sessionStorage.getItem('patina-session');
  if (session) {
    try {
      const resumed = await api('GET', `/api/state?session=${session}`);
      orientation = resumed.human;
      $('rating').value = resumed.rating.name;
      render(resumed);
      return;
    } catch {
      sessionStorage.removeItem('patina-session');
    }
  }
  await start({});
})();
