#!/bin/sh
# The one place the release archive's file name is spelled. release.sh packs under this name
# (and renders it into the krew manifest's URIs); the GitHub Action downloads this name.
#
#   packaging/archive-name.sh VERSION OS ARCH
#   packaging/archive-name.sh v0.1.0 linux amd64   # kubectl-wasctl_0.1.0_linux_amd64.tar.gz
#
# VERSION may carry a leading `v`; OS is linux, darwin or windows; ARCH is amd64 or arm64
# (krew's names). Windows archives are zip files, the others gzipped tarballs.
set -eu
if [ "$#" -ne 3 ]; then
    echo "usage: packaging/archive-name.sh VERSION OS ARCH" >&2
    exit 2
fi
version=${1#v}
case $2 in
    linux | darwin) ext=tar.gz ;;
    windows) ext=zip ;;
    *)
        echo "error: unknown OS \`$2\` (linux, darwin or windows)" >&2
        exit 2
        ;;
esac
case $3 in
    amd64 | arm64) ;;
    *)
        echo "error: unknown architecture \`$3\` (amd64 or arm64)" >&2
        exit 2
        ;;
esac
printf 'kubectl-wasctl_%s_%s_%s.%s\n' "$version" "$2" "$3" "$ext"
