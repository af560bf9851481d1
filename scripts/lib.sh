# Shared helpers for the scripts in this folder (sourced, not run).

# fastchess from $FASTCHESS or PATH; it is built outside the repo (see README).
find_fastchess() {
  FASTCHESS=${FASTCHESS:-$(command -v fastchess || true)}
  if [ -z "$FASTCHESS" ] || [ ! -x "$FASTCHESS" ]; then
    echo "fastchess not found: put it on PATH or set FASTCHESS=/path/to/fastchess" >&2
    exit 2
  fi
}

# Prints the path of an unpacked opening book from ../shared/books (unzipped once into $BOOK_DIR).
book_path() {
  local name=$1
  local dir=${BOOK_DIR:-${TMPDIR:-/tmp}/patina-books}
  local repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ ! -f "$dir/$name" ]; then
    mkdir -p "$dir"
    unzip -oq "$repo/../shared/books/$name.zip" -d "$dir" || { echo "cannot unpack book $name" >&2; exit 2; }
  fi
  echo "$dir/$name"
}

# Sets `order` to fastchess's -openings words for ORDER: random (the default) or sequential
# (the book in file order from opening START, default 1); refuses any other value.
opening_order() {
  case ${ORDER:-random} in
    random) order=(order=random) ;;
    sequential) order=(order=sequential start="${START:-1}") ;;
    *) echo "ORDER=\"$ORDER\": give random or sequential" >&2; exit 2 ;;
  esac
}
