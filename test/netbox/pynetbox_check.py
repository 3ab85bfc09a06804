# Drives Debian's pynetbox (7.0) against a Cairn server as a NetBox script would; prints what it saw as JSON for
# test/netbox-clients.test.ts to check. NB_URL, NB_TOKEN: the server and a token.
import json
import os
import sys

import pynetbox

nb = pynetbox.api(os.environ["NB_URL"], token=os.environ["NB_TOKEN"])
out = {}
out["version"] = nb.version
out["status"] = nb.status()["netbox-version"]

# Lists, filters by slug and by id, gets by name, counts.
out["sites"] = sorted(s.slug for s in nb.dcim.sites.all())
out["by_slug"] = sorted(d.name for d in nb.dcim.devices.filter(site="ams1"))
site = nb.dcim.sites.get(slug="ams1")
out["by_site_id"] = sorted(d.name for d in nb.dcim.devices.filter(site_id=site.id))
out["by_ids"] = sorted(d.name for d in nb.dcim.devices.filter(id=[d.id for d in nb.dcim.devices.filter(role="leaf")]))
out["name_ic"] = sorted(d.name for d in nb.dcim.devices.filter(name__ic="LEAF-0"))
dev = nb.dcim.devices.get(name="leaf-01")
out["get_name"] = [dev.name, dev.site.slug, dev.status.value, str(dev.status), dev.role.slug, dev.device_type.model, dev.device_type.manufacturer.slug]
out["primary_ip"] = dev.primary_ip4.address if dev.primary_ip4 else None
out["count"] = nb.dcim.devices.count(site="ams1")
out["count_all"] = nb.dcim.devices.count()
# Every page of all(): pynetbox follows `next` (limit=2: several pages).
out["all_pages"] = sorted(d.name for d in nb.dcim.devices.all(limit=2))

# Create, update with save(), custom fields and tags.
created = nb.dcim.devices.create(name="leaf-99", device_type=dev.device_type.id, role={"slug": "leaf"}, site=site.id, status="planned")
out["created"] = [created.name, created.status.value, created.site.id == site.id]
created.serial = "SN-99"
created.custom_fields["rack_unit_note"] = "top"
created.tags = [{"name": "gold"}]
created.status = "active"
out["saved"] = created.save()
again = nb.dcim.devices.get(created.id)
out["after_save"] = [again.serial, again.status.value, again.custom_fields.get("rack_unit_note"), [t.slug for t in again.tags]]
out["by_tag"] = sorted(d.name for d in nb.dcim.devices.filter(tag="gold"))
out["by_cf"] = sorted(d.name for d in nb.dcim.devices.filter(cf_rack_unit_note="top"))

# Allocate from a prefix's available addresses.
prefix = nb.ipam.prefixes.get(prefix="10.9.0.0/29")
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
out["gone"] = nb.dcim.devices.get(name="leaf-99") is None
out["ip_deleted"] = ip2.delete()

json.dump(out, sys.stdout)
