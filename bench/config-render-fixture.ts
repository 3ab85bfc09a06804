// The three templates of the config-render benchmark and its query-count test: interfaces, BGP, and a JSON file.
export const CONFIG_BENCH_TEMPLATES = [
  {
    name: 'bench-interfaces',
    target_path: '/etc/network/interfaces',
    template_code: `{% for i in interfaces %}auto {{ i.name }}
iface {{ i.name }}{% if i.description %} # {{ i.description }}{% endif %}

{% if i.mtu %}    mtu {{ i.mtu }}
{% endif %}{% if i.vlan %}    vlan {{ i.vlan.vid }}
{% endif %}{% if i.link_peer %}    # peer {{ i.link_peer.device }} {{ i.link_peer.interface }}
{% endif %}{% for ip in ip_addresses if ip.assigned_interface_id == i.id %}    address {{ ip.address }}
{% endfor %}{% endfor %}`,
  },
  {
    name: 'bench-bgp',
    target_path: '/etc/frr/frr.conf',
    template_code: `hostname {{ device.name }}
{% for b in routing.bgp %}router bgp {{ b.asn }}{% if b.vrf %} vrf {{ b.vrf }}{% endif %}

{% if b.router_id %} bgp router-id {{ b.router_id }}
{% endif %}{% for s in b.sessions %} neighbor {{ s.remote_address or s.interface }} remote-as {{ s.remote_asn_effective or s.remote_asn_mode }}
{% if s.keychain %} neighbor {{ s.remote_address }} password {{ routing.keychain_by_name[s.keychain].placeholder }}
{% endif %}{% endfor %}{% endfor %}`,
  },
  {
    name: 'bench-facts',
    target_path: '/etc/cairn/facts.json',
    file_extension: 'json',
    mime_type: 'application/json',
    template_code: `{{ {"name": device.name, "site": device.site.name, "role": device.role.name, "interfaces": interfaces | length, "context": config_context} | tojson }}`,
  },
];
