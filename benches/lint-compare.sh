#!/usr/bin/env bash
# Benchmark B8 (shared/design/performance.md): lint 10,000 mixed manifests, wall time on this
# machine, side by side with the Python `kubernetes-validate` 1.37 package on the same files.
# Not run in CI: it installs kubernetes-validate from the package registry into a throwaway
# virtualenv. Usage: benches/lint-compare.sh [COUNT] (default 10000); with WASCTL_ONLY=1 only
# wasctl is timed (three runs, no download).
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="$work/manifests"
mkdir -p "$corpus"

# The corpus: the good lint fixtures' documents, one per file, renamed per copy, cycled.
python3 - "$corpus" "$count" <<'PY'
import glob, os, sys
out, count = sys.argv[1], int(sys.argv[2])
docs = []
for path in sorted(glob.glob("testdata/manifests/lint/good/*.yaml")):
    for doc in open(path).read().split("\n---\n"):
        if "kind:" in doc and "kind: List" not in doc:
            docs.append(doc)
for i in range(count):
    doc = docs[i % len(docs)]
    # Give every copy its own namespace so names stay unique and references still resolve.
    text = doc.replace("namespace: ml", f"namespace: ml-{i // len(docs)}")
    text = text.replace("namespace: inference", f"namespace: inference-{i // len(docs)}")
    with open(os.path.join(out, f"m{i:05d}.yaml"), "w") as f:
        f.write(text + "\n")
PY
echo "corpus: $count files, $(du -sh "$corpus" | cut -f1)"

cargo build --release --locked --quiet
start=$(date +%s.%N)
target/release/kubectl-wasctl lint "$corpus" -o json >"$work/wasctl.json" || true
end=$(date +%s.%N)
wasctl_s=$(echo "$end - $start" | bc)
echo "wasctl lint:          ${wasctl_s} s ($(python3 -c "import json;r=json.load(open('$work/wasctl.json'));print(r['summary']['objects'])") objects)"

if [ "${WASCTL_ONLY:-}" = 1 ]; then
    for run in 2 3; do
        start=$(date +%s.%N)
        target/release/kubectl-wasctl lint "$corpus" -o json >/dev/null || true
        end=$(date +%s.%N)
        echo "wasctl lint, run $run:   $(echo "$end - $start" | bc) s"
    done
    exit 0
fi
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "kubernetes-validate==1.37.0"
start=$(date +%s.%N)
(cd "$corpus" && find . -name '*.yaml' -print0 | xargs -0 "$work/venv/bin/kubernetes-validate" -k 1.37.0 >"$work/kv.txt" 2>&1) || true
end=$(date +%s.%N)
kv_s=$(echo "$end - $start" | bc)
echo "kubernetes-validate:  ${kv_s} s"
