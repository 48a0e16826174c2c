#!/usr/bin/env python3
"""A read-only fake API server on 127.0.0.1 for timing live mode on a realistic dump (issue 15:
"live mode, S through the fake API server (pages of 500) <= 2x the file time").

Serves discovery, /version, /metrics and paginated LISTs (limit/continue) of the objects in a
`kind: List` JSON dump, as kube-apiserver does. Every page is serialized before the server
starts listening, so the time measured is the client's, not this script's. Not a test fixture
(the tests use tests/cli/fake_apiserver.rs); used by benches/commands.sh.

Usage: live-server.py DUMP.json PORT_FILE   (writes the chosen port to PORT_FILE when ready)
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# (group, version, plural, kind, namespaced): what wasctl lists (src/snapshot/source/live.rs).
RESOURCES = [
    ("", "v1", "nodes", "Node", False),
    ("", "v1", "pods", "Pod", True),
    ("", "v1", "namespaces", "Namespace", False),
    ("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    ("scheduling.k8s.io", "v1beta1", "workloads", "Workload", True),
    ("scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", True),
    ("scheduling.k8s.io", "v1alpha3", "compositepodgroups", "CompositePodGroup", True),
    ("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True),
    ("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
    ("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False),
    ("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    ("resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule", False),
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    ("batch", "v1", "jobs", "Job", True),
]
PAGE = 500


def gv(group, version):
    return f"{group}/{version}" if group else version


def main():
    dump, port_file = sys.argv[1], sys.argv[2]
    with open(dump, encoding="utf-8") as f:
        items = json.load(f)["items"]
    by_key = {}
    for obj in items:
        group, _, version = obj.get("apiVersion", "").rpartition("/")
        by_key.setdefault((group, version, obj.get("kind")), []).append(obj)
    del items
    routes = {}
    for group, version, plural, kind, _ in RESOURCES:
        objs = by_key.get((group, version, kind), [])
        pages = [objs[i : i + PAGE] for i in range(0, len(objs), PAGE)] or [[]]
        prefix = f"/api/{version}" if not group else f"/apis/{group}/{version}"
        bodies = []
        for n, page in enumerate(pages):
            meta = {"resourceVersion": "1000"}
            if n + 1 < len(pages):
                meta["continue"] = str(n + 1)
                meta["remainingItemCount"] = len(objs) - (n + 1) * PAGE
            body = {"kind": kind + "List", "apiVersion": gv(group, version), "metadata": meta, "items": page}
            bodies.append(json.dumps(body, separators=(",", ":")).encode())
        routes[f"{prefix}/{plural}"] = bodies
    del by_key

    def doc(value):
        return json.dumps(value).encode()

    groups = {}
    for group, version, plural, kind, namespaced in RESOURCES:
        groups.setdefault(group, {}).setdefault(version, []).append(
            {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
             "verbs": ["get", "list", "watch"]})
    static = {
        "/version": doc({"major": "1", "minor": "37", "gitVersion": "v1.37.0", "platform": "linux/amd64"}),
        "/metrics": b"# TYPE kubernetes_feature_enabled gauge\n"
        b'kubernetes_feature_enabled{name="GenericWorkload",stage="BETA"} 1\n',
        "/api": doc({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
        "/apis": doc({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": g, "versions": [{"groupVersion": gv(g, v), "version": v} for v in vs],
             "preferredVersion": {"groupVersion": gv(g, next(iter(vs))), "version": next(iter(vs))}}
            for g, vs in groups.items() if g]}),
    }
    for group, versions in groups.items():
        for version, resources in versions.items():
            path = f"/api/{version}" if not group else f"/apis/{group}/{version}"
            static[path] = doc({"kind": "APIResourceList", "apiVersion": "v1",
                                "groupVersion": gv(group, version), "resources": resources})

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, code, body, content_type="application/json"):
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlsplit(self.path)
            path = url.path.rstrip("/")
            if path in static:
                kind = "text/plain" if path == "/metrics" else "application/json"
                return self.send(200, static[path], kind)
            if path in routes:
                token = parse_qs(url.query).get("continue", ["0"])[0]
                pages = routes[path]
                n = int(token) if token.isdigit() else 0
                if n < len(pages):
                    return self.send(200, pages[n])
            self.send(404, doc({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                "reason": "NotFound", "code": 404}))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file, "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
