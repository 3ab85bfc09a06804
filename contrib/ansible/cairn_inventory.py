#!/usr/bin/env python3
"""Ansible dynamic inventory for Cairn (Python standard library only).

    ansible-inventory -i cairn_inventory.py --graph
    ansible-playbook  -i cairn_inventory.py site.yml

Settings come from the environment, else from cairn_inventory.ini next to this script:

    CAIRN_URL        base URL of Cairn, e.g. https://cairn.example.net       [cairn] url
    CAIRN_TOKEN      API token (read-only is enough)                         [cairn] token
    CAIRN_QUERY      optional inventory filters, e.g. site=ams1&kind=device   [cairn] query
    CAIRN_CACHE      optional cache file; answers are revalidated with        [cairn] cache
                     If-None-Match, so an unchanged inventory costs a 304
    CAIRN_TIMEOUT    seconds, default 60                                      [cairn] timeout

Exit status 1 with a one-line message on stderr when the server cannot be reached, the token is refused or the
answer is not an inventory: Ansible then reports the source as failed instead of running against no hosts.
"""
import argparse
import configparser
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    sys.stderr.write("cairn_inventory: %s\n" % message)
    sys.exit(1)


def settings():
    ini = configparser.ConfigParser()
    ini.read(os.path.join(HERE, "cairn_inventory.ini"))
    section = ini["cairn"] if ini.has_section("cairn") else {}

    def pick(name, key, default=""):
        value = os.environ.get(name)
        if value is None or value == "":
            value = section.get(key, default)
        return (value or "").strip()

    url = pick("CAIRN_URL", "url")
    token = pick("CAIRN_TOKEN", "token")
    if not url:
        fail("set CAIRN_URL (or url in cairn_inventory.ini) to the address of Cairn")
    if not token:
        fail("set CAIRN_TOKEN (or token in cairn_inventory.ini) to a Cairn API token")
    try:
        timeout = float(pick("CAIRN_TIMEOUT", "timeout", "60"))
    except ValueError:
        fail("CAIRN_TIMEOUT must be a number of seconds")
    return {
        "url": url.rstrip("/"),
        "token": token,
        "query": pick("CAIRN_QUERY", "query").lstrip("?"),
        "cache": pick("CAIRN_CACHE", "cache"),
        "timeout": timeout,
    }


def read_cache(path):
    if not path:
        return None
    try:
        with open(path, "r", encoding="utf-8") as f:
            cached = json.load(f)
        if isinstance(cached, dict) and isinstance(cached.get("etag"), str) and isinstance(cached.get("body"), str):
            return cached
    except (OSError, ValueError):
        pass
    return None


def write_cache(path, key, etag, body):
    if not path or not etag:
        return
    try:
        # The inventory is tenant data: keep the cache private to the user running Ansible.
        fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"key": key, "etag": etag, "body": body}, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # a cache that cannot be written only costs a full download next time


def fetch_inventory(cfg):
    url = cfg["url"] + "/api/inventory/ansible/"
    if cfg["query"]:
        url += "?" + cfg["query"]
    # A cached answer is only valid for the same address, filters and token.
    key = url + " " + cfg["token"][-8:]
    cached = read_cache(cfg["cache"])
    if cached and cached.get("key") != key:
        cached = None
    headers = {"Authorization": "Token " + cfg["token"], "Accept": "application/json"}
    if cached:
        headers["If-None-Match"] = cached["etag"]
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=cfg["timeout"]) as response:
            body = response.read().decode("utf-8")
            etag = response.headers.get("ETag")
    except urllib.error.HTTPError as err:
        if err.code == 304 and cached:
            return cached["body"]
        detail = ""
        try:
            parsed = json.loads(err.read().decode("utf-8"))
            detail = parsed.get("detail") if isinstance(parsed, dict) and "detail" in parsed else json.dumps(parsed)
        except (ValueError, OSError):
            pass
        if err.code in (401, 403):
            fail("the token was refused by %s (HTTP %d)%s" % (cfg["url"], err.code, ": " + detail if detail else ""))
        fail("%s answered HTTP %d%s" % (url, err.code, ": " + detail if detail else ""))
    except urllib.error.URLError as err:
        fail("cannot reach Cairn at %s (%s)" % (cfg["url"], err.reason))
    except (OSError, ValueError) as err:
        fail("cannot reach Cairn at %s (%s)" % (cfg["url"], err))
    write_cache(cfg["cache"], key, etag, body)
    return body


def main():
    parser = argparse.ArgumentParser(description="Ansible inventory from Cairn")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true", help="print the whole inventory")
    mode.add_argument("--host", metavar="NAME", help="print the variables of one host")
    args = parser.parse_args()

    cfg = settings()
    body = fetch_inventory(cfg)
    try:
        inventory = json.loads(body)
    except ValueError:
        fail("%s did not answer with JSON" % cfg["url"])
    if not isinstance(inventory, dict) or "_meta" not in inventory:
        fail("%s did not answer with an Ansible inventory" % cfg["url"])
    if args.list:
        sys.stdout.write(body)
        sys.stdout.write("\n")
    else:
        # Ansible reads hostvars from _meta and never calls --host; this serves people running it by hand.
        json.dump(inventory["_meta"]["hostvars"].get(args.host, {}), sys.stdout)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
