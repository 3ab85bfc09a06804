#!/usr/bin/env python3
"""Example push tool for Cairn config bundles (standard library only).

Cairn never pushes configuration itself. This tool shows the contract a real one follows:

  1. render a bundle for a device:   GET  /api/devices/<id>/render/?bundle=<name|role>
  2. substitute keys: every <keychain:NAME> placeholder is replaced with the key from
                                      POST /api/routing/keychains/<id>/reveal-psk/  (audited; needs keychain.reveal)
  3. write the files under a local directory (or, with --ssh host, to a lab path over ssh)
  4. record the push with the RENDERED text and hash (placeholders, never keys):
                                      POST /api/devices/<id>/config-pushed/
     naming the deploy run when an automation system started this (extra variable cairn_deploy_run)

Usage:
  CAIRN_URL=http://127.0.0.1:8000 CAIRN_TOKEN=... \\
    python3 cairn_push.py --device <uuid> --bundle role --dest ./out [--ssh lab-host] [--dry-run]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

PLACEHOLDER = re.compile(r"<keychain:([^<>\s]+)>")


class Api:
    def __init__(self, base, token):
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", "Token " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            raise SystemExit("%s %s: %s %s" % (method, path, err.code, err.read().decode("utf-8", "replace")))


def keychain_ids(api):
    """Keychain name -> id (names are unique per tenant)."""
    out, path = {}, "/api/routing/keychains/?limit=1000"
    while path:
        page = api.call("GET", path)
        for row in page["results"]:
            out[row["name"]] = row["id"]
        nxt = page.get("next")
        path = urllib.parse.urlsplit(nxt)._replace(scheme="", netloc="").geturl() if nxt else None
    return out


def substitute(text, api, ids, cache):
    def key_for(match):
        name = match.group(1)
        if name not in cache:
            if name not in ids:
                raise SystemExit("No keychain called %r (placeholder %s)." % (name, match.group(0)))
            cache[name] = api.call("POST", "/api/routing/keychains/%s/reveal-psk/" % ids[name], {})["psk"]
        return cache[name]

    return PLACEHOLDER.sub(key_for, text)


def safe_relative(path):
    rel = path.lstrip("/")
    parts = rel.split("/")
    if not rel or ".." in parts or "\0" in rel:
        raise SystemExit("Refusing to write %r." % path)
    return rel


def write_local(dest, rel, content):
    target = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    tmp = target + ".cairn-tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(content)
    os.chmod(tmp, 0o600)  # the file holds keys now
    os.replace(tmp, target)


def write_ssh(host, dest, rel, content):
    target = dest.rstrip("/") + "/" + rel
    quoted = "'" + target.replace("'", "'\\''") + "'"
    cmd = "mkdir -p \"$(dirname %s)\" && umask 077 && cat > %s" % (quoted, quoted)
    subprocess.run(["ssh", host, cmd], input=content.encode("utf-8"), check=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default=os.environ.get("CAIRN_URL", "http://127.0.0.1:8000"))
    p.add_argument("--token", default=os.environ.get("CAIRN_TOKEN"))
    p.add_argument("--device", required=True, help="device id")
    p.add_argument("--bundle", default="role", help="bundle name or id, or 'role' (default)")
    p.add_argument("--dest", required=True, help="local directory, or the remote directory with --ssh")
    p.add_argument("--ssh", help="write over ssh to this host instead of locally (a lab path)")
    p.add_argument("--source", default="contrib/push")
    p.add_argument("--note", default="")
    p.add_argument("--deploy-run", default=os.environ.get("CAIRN_DEPLOY_RUN") or None,
                   help="id of the Cairn deploy run this push finishes (the cairn_deploy_run extra variable)")
    p.add_argument("--dry-run", action="store_true", help="render and substitute, write nothing, record nothing")
    args = p.parse_args(argv)
    if not args.token:
        raise SystemExit("Set CAIRN_TOKEN or pass --token.")
    api = Api(args.url, args.token)
    render = api.call("GET", "/api/devices/%s/render/?bundle=%s" % (args.device, urllib.parse.quote(args.bundle)))
    ids = keychain_ids(api) if any(PLACEHOLDER.search(f["output"]) for f in render["files"].values()) else {}
    cache, records = {}, []
    for path, entry in render["files"].items():
        rel = safe_relative(path)
        content = substitute(entry["output"], api, ids, cache)
        if args.dry_run:
            print("would write %s (%d bytes)" % (path, len(content.encode("utf-8"))))
            continue
        if args.ssh:
            write_ssh(args.ssh, args.dest, rel, content)
        else:
            write_local(args.dest, rel, content)
        # Record what Cairn rendered (with placeholders), so drift compares like with like and no key is stored.
        records.append({"path": path, "sha256": entry["sha256"], "output": entry["output"], "template": entry["template_id"]})
        print("wrote %s" % path)
    if records:
        body = {"files": records, "bundle": render["bundle"], "source": args.source, "note": args.note}
        if args.deploy_run:
            body["deploy_run"] = args.deploy_run
        res = api.call("POST", "/api/devices/%s/config-pushed/" % args.device, body)
        print("recorded %d file(s) at %s" % (len(res["recorded"]), res["pushed_at"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
