#!/usr/bin/env bash
# Whole commands timed as processes (issue 15's targets): writes the realistic S and L dumps
# (src/testutil/realistic.rs; never committed) and runs simulate, tree -A and explain on them
# with the release binary, printing wall time and peak RSS (`/usr/bin/time -f "%e s %M KB"`),
# then simulate and tree in live mode on S through benches/live-server.py.
# Not run in CI (the L dump is 1.75 GB). Usage: benches/commands.sh [DIR] (default: a temp dir,
# removed afterwards; a given DIR is kept, and existing dumps in it are reused).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-}"
if [ -z "$dir" ]; then
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
cargo build --release --locked --quiet
bin="$PWD/target/release/kubectl-wasctl"
if [ ! -f "$dir/l.json" ]; then
    cargo bench --features testutil --bench realistic --locked --quiet -- write "$dir"
fi
ls -l "$dir"
measure() {
    local label="$1"
    shift
    local stats="$dir/.time"
    /usr/bin/time -o "$stats" -f "%e s %M KB" "$bin" "$@" >/dev/null 2>&1 || true
    printf '%-48s %s\n' "$label" "$(tail -n 1 "$stats")"
}
for size in s l; do
    f="$dir/$size.json"
    measure "simulate $size.json" simulate --from "$f" -A
    measure "tree -A $size.json" tree --from "$f" -A
    # The first pending gang of the dump: explain it.
    gang="$("$bin" simulate --from "$f" -A -o name 2>/dev/null | grep -m1 '^podgroup' || true)"
    if [ -n "$gang" ]; then
        ns="$("$bin" simulate --from "$f" -A -o json 2>/dev/null | python3 -c "import json,sys; u=[u for u in json.load(sys.stdin)['units'] if u['kind']=='PodGroup']; print(u[0]['namespace'] if u else '')")"
        measure "explain $gang $size.json" explain "$gang" -n "$ns" --from "$f"
    fi
done
if [ -f "$dir/s.yaml" ]; then
    measure "simulate s.yaml" simulate --from "$dir/s.yaml" -A
fi
# Live mode: S through a local fake API server on 127.0.0.1 (benches/live-server.py, every
# page of 500 serialized before it listens), against the file time above.
port_file="$dir/.port"
rm -f "$port_file"
python3 benches/live-server.py "$dir/s.json" "$port_file" &
server=$!
for _ in $(seq 1200); do [ -s "$port_file" ] && break; sleep 0.25; done
cat >"$dir/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster: {server: 'http://127.0.0.1:$(cat "$port_file")'}
users:
- name: bench
  user: {token: bench}
contexts:
- name: bench
  context: {cluster: bench, user: bench}
current-context: bench
KUBECONFIG
measure "simulate -A live S (pages of 500)" simulate -A --kubeconfig "$dir/kubeconfig"
measure "tree -A live S (pages of 500)" tree -A --kubeconfig "$dir/kubeconfig"
kill "$server"
