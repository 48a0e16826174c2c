#!/usr/bin/env bash
# Builds release archives of kubectl-wasctl and the krew manifest that points at them.
#
#   packaging/release.sh TARGET...
#   packaging/release.sh x86_64-unknown-linux-gnu aarch64-apple-darwin x86_64-pc-windows-msvc
#
# For each Rust target triple it runs `cargo build --target TARGET`, then packs
# `$DIST_DIR/kubectl-wasctl_<version>_<os>_<arch>.tar.gz` (`.zip` for Windows; the name comes
# from packaging/archive-name.sh, which the GitHub Action uses too) holding the binary,
# LICENSE, README.md, completions/ and man/ (one page per subcommand). It writes `$DIST_DIR/sha256sums.txt` and renders
# `$DIST_DIR/krew-manifest.yaml` from the top-level `krew-manifest.yaml` with the real URIs and
# checksums; platforms that were not built are left out of it.
#
# A target whose standard library is not installed is skipped with a message; this script
# never downloads a toolchain (`rustup target add TARGET` does).
#
# Environment:
#   DIST_DIR                output directory (default: dist)
#   WASCTL_RELEASE_URL      base URL of the archives
#                           (default: https://github.com/wasctl/wasctl/releases/download/v<version>)
#   WASCTL_RELEASE_PROFILE  cargo profile: dist (default: release plus thin LTO, see Cargo.toml),
#                           release, or debug/dev for a quick check
#   WASCTL_RELEASE_PREBUILT an already built kubectl-wasctl to pack for the host target instead
#                           of running cargo (tests use it: `cargo test` builds with dev-dependency
#                           features, so a nested `cargo build` would relink wasctl every time)
#   CARGO                   cargo to run (default: cargo)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "$#" -eq 0 ]; then
    echo "usage: packaging/release.sh TARGET..." >&2
    echo "example: packaging/release.sh x86_64-unknown-linux-gnu" >&2
    exit 2
fi

cargo=${CARGO:-cargo}
dist=${DIST_DIR:-dist}
case $dist in /*) ;; *) dist="$root/$dist" ;; esac
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir="$root/$target_dir" ;; esac

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -z "$version" ]; then
    echo "error: cannot read the version from Cargo.toml" >&2
    exit 1
fi
manifest_version=$(sed -n 's/^  version: //p' krew-manifest.yaml | head -n 1)
if [ "$manifest_version" != "v$version" ]; then
    echo "error: krew-manifest.yaml has version \`$manifest_version\`, Cargo.toml \`$version\`" >&2
    echo "hint: set \`spec.version: v$version\` in krew-manifest.yaml" >&2
    exit 1
fi
base_url=${WASCTL_RELEASE_URL:-https://github.com/wasctl/wasctl/releases/download/v$version}
base_url=${base_url%/}

case ${WASCTL_RELEASE_PROFILE:-dist} in
    dist) profile=dist; profile_dir=dist ;;
    release) profile=release; profile_dir=release ;;
    debug | dev) profile=dev; profile_dir=debug ;;
    *)
        echo "error: WASCTL_RELEASE_PROFILE must be \`dist\`, \`release\` or \`debug\`" >&2
        exit 2
        ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
else
    sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
fi

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')

mkdir -p "$dist"
sums="$dist/sha256sums.txt"
: >"$sums"
rendered="$dist/krew-manifest.yaml.tmp"
cp krew-manifest.yaml "$rendered"
built=0

for target in "$@"; do
    case $target in
        x86_64-*linux*) os=linux arch=amd64 ;;
        aarch64-*linux*) os=linux arch=arm64 ;;
        x86_64-apple-darwin) os=darwin arch=amd64 ;;
        aarch64-apple-darwin) os=darwin arch=arm64 ;;
        x86_64-pc-windows-*) os=windows arch=amd64 ;;
        *)
            echo "error: no krew platform for target \`$target\`" >&2
            echo "hint: use one of x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, x86_64-apple-darwin, aarch64-apple-darwin, x86_64-pc-windows-msvc" >&2
            exit 2
            ;;
    esac
    if [ ! -d "$sysroot/lib/rustlib/$target/lib" ]; then
        echo "skipping $target: its standard library is not installed (\`rustup target add $target\`)" >&2
        continue
    fi

    exe=kubectl-wasctl
    [ "$os" = windows ] && exe=kubectl-wasctl.exe
    echo "building $target ($os/$arch, profile $profile)" >&2
    if [ "$target" = "$host" ] && [ -n "${WASCTL_RELEASE_PREBUILT:-}" ]; then
        bin=$WASCTL_RELEASE_PREBUILT
        if [ ! -x "$bin" ]; then
            echo "error: WASCTL_RELEASE_PREBUILT=\`$bin\` is not an executable" >&2
            exit 2
        fi
    elif [ "$target" = "$host" ]; then
        # No `--target` for the host: reuses the artifacts of a plain `cargo build`.
        "$cargo" build --locked --profile "$profile" --bin kubectl-wasctl
        bin="$target_dir/$profile_dir/$exe"
    else
        "$cargo" build --locked --profile "$profile" --bin kubectl-wasctl --target "$target"
        bin="$target_dir/$target/$profile_dir/$exe"
    fi

    stage=$(mktemp -d)
    cp "$bin" "$stage/$exe"
    cp LICENSE README.md "$stage/"
    # Shell completions and man pages (`kubectl wasctl completion SHELL` prints the same
    # scripts; krew installs the binary alone).
    mkdir "$stage/completions" "$stage/man"
    cp completions/* "$stage/completions/"
    cp packaging/man/*.1 "$stage/man/"
    archive=$(packaging/archive-name.sh "$version" "$os" "$arch")
    if [ "$os" = windows ]; then
        if ! command -v zip >/dev/null 2>&1; then
            echo "error: \`zip\` is needed to pack $archive" >&2
            rm -rf "$stage"
            exit 1
        fi
        rm -f "$dist/$archive"
        (cd "$stage" && zip -q -X -r "$dist/$archive" "$exe" LICENSE README.md completions man)
    else
        tar -C "$stage" -czf "$dist/$archive" "$exe" LICENSE README.md completions man
    fi
    rm -rf "$stage"

    sum=$(sha256 "$dist/$archive")
    printf '%s  %s\n' "$sum" "$archive" >>"$sums"
    key=$(printf '%s_%s' "$os" "$arch" | tr '[:lower:]' '[:upper:]')
    sed -i.bak -e "s|URI_$key\$|$base_url/$archive|" -e "s|SHA256_$key\$|$sum|" "$rendered"
    rm -f "$rendered.bak"
    built=$((built + 1))
    echo "packed $dist/$archive" >&2
done

if [ "$built" -eq 0 ]; then
    rm -f "$rendered"
    echo "error: no target was built" >&2
    exit 1
fi

# Drop the platforms that still hold placeholders (targets not built). Each platform is the
# block from `  - selector:` to the next one or the end of the list.
awk '
    function flush() { if (block != "" && block !~ /(URI|SHA256)_[A-Z0-9]+_[A-Z0-9]+/) printf "%s", block; block = "" }
    /^  - selector:/ { flush(); inblock = 1 }
    inblock && /^  [^ -]/ { flush(); inblock = 0 }
    inblock { block = block $0 "\n"; next }
    { print }
    END { flush() }
' "$rendered" >"$dist/krew-manifest.yaml"
rm -f "$rendered"
echo "wrote $sums and $dist/krew-manifest.yaml" >&2
