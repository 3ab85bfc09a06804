# Drives Debian's pynetbox (7.0) against a Cairn server as a NetBox script would; prints what it saw as JSON for
# test/netbox-clients.test.ts to check. NB_URL, NB_TOKEN: the server and a token. NB_PARAMS: what to look for
# (a site, a role, a device at that site, a prefix with free addresses, a tag, a device custom field), so the same
# script runs against Cairn's own data and against an imported NetBox demo. Lists come back as ids and names.
import json
import os
import sys

import pynetbox

P = json.loads(os.environ["NB_PARAMS"])
nb = pynetbox.api(os.environ["NB_URL"], token=os.environ["NB_TOKEN"])
out = {}


def both(records):
    records = sorted(records, key=lambda r: r.id)
    return {"ids": [r.id for r in records], "names": sorted(str(r.name) for r in records)}


out["version"] = nb.version
out["status"] = nb.status()["netbox-version"]

# Lists, filters by slug and by id, gets by name, counts.
out["sites"] = sorted(s.slug for s in nb.dcim.sites.all())
out["by_slug"] = both(nb.dcim.devices.filter(site=P["site"]))
site = nb.dcim.sites.get(slug=P["site"])
out["by_site_id"] = both(nb.dcim.devices.filter(site_id=site.id))
out["by_ids"] = both(nb.dcim.devices.filter(id=[d.id for d in nb.dcim.devices.filter(role=P["role"])]))
out["name_ic"] = both(nb.dcim.devices.filter(name__ic=P["name_ic"]))
dev = nb.dcim.devices.get(name=P["device"])
out["get_name"] = [dev.id, dev.name, dev.site.slug, dev.status.value, str(dev.status), dev.role.slug, dev.device_type.model, dev.device_type.manufacturer.slug]
out["primary_ip"] = dev.primary_ip4.address if dev.primary_ip4 else None
out["count"] = nb.dcim.devices.count(site=P["site"])
out["count_all"] = nb.dcim.devices.count()
# Every page of all(): pynetbox follows `next` (several pages).
out["all_pages"] = both(nb.dcim.devices.all(limit=P["page"]))

# Create, update with save(), custom fields and tags.
created = nb.dcim.devices.create(name=P["new"], device_type=dev.device_type.id, role={"slug": P["role"]}, site=site.id, status="planned")
out["created"] = [created.name, created.status.value, created.site.id == site.id]
created.serial = "SN-99"
created.custom_fields[P["cf"]] = "top"
created.tags = [{"name": P["tag_name"]}]
created.status = "active"
out["saved"] = created.save()
again = nb.dcim.devices.get(created.id)
out["after_save"] = [again.serial, again.status.value, again.custom_fields.get(P["cf"]), [t.slug for t in again.tags]]
out["by_tag"] = both(nb.dcim.devices.filter(tag=P["tag_slug"]))
out["by_cf"] = both(nb.dcim.devices.filter(**{"cf_" + P["cf"]: "top"}))
out["new_id"] = created.id

# Allocate from a prefix's available addresses.
prefix = nb.ipam.prefixes.get(prefix=P["prefix"])
free = prefix.available_ips.list()
out["free_first"] = str(free[0]) if free else None
ip = prefix.available_ips.create({"description": "allocated", "status": "active"})
out["allocated"] = [ip.address, ip.description, ip.status.value]
ip2 = nb.ipam.ip_addresses.get(ip.id)
out["allocated_read"] = ip2.address

# Choices from OPTIONS.
choices = nb.dcim.devices.choices()
out["choices_status"] = sorted(c["value"] for c in choices["status"])
out["choices_face"] = sorted(c["value"] for c in choices["face"])
out["ip_roles"] = sorted(c["value"] for c in nb.ipam.ip_addresses.choices()["role"])

# Delete.
out["deleted"] = created.delete()
out["gone"] = nb.dcim.devices.get(name=P["new"]) is None
out["ip_deleted"] = ip2.delete()

json.dump(out, sys.stdout)
