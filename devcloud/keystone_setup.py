#!/usr/bin/python3
"""Idempotent Keystone setup for the vtpmctl devcloud (run by up.sh).

Creates the service project and one service user per service (role admin
on 'service'), the catalog on 127.0.0.1, and the test principals:
  project demo : demo  (member + creator)  demo2 (member only)
  project other: other (member + creator)
The admin user comes from keystone-manage bootstrap; it also gets admin on
demo, other and service, as an auditor account would.
"""
import os

from keystoneauth1 import session
from keystoneauth1.identity import v3

KS = os.environ['KS']
REGION = os.environ['REGION']
SVC_PASS = os.environ['SVC_PASS']

auth = v3.Password(auth_url=KS + '/v3', username='admin',
                   password=os.environ['ADMIN_PASS'], project_name='admin',
                   user_domain_id='default', project_domain_id='default')
s = session.Session(auth=auth)
EP = {'service_type': 'identity', 'interface': 'public'}


def get(path, **q):
    return s.get(path, endpoint_filter=EP, params=q).json()


def post(path, body):
    return s.post(path, json=body, endpoint_filter=EP).json()


def find_or_create(coll, key, name, body):
    items = get('/' + coll, name=name)[coll]
    return items[0] if items else post('/' + coll, {key: body})[key]


def grant(project, user, role):
    s.put('/projects/%s/users/%s/roles/%s' % (project, user, role),
          endpoint_filter=EP)


def user(name, password, project=None):
    body = {'name': name, 'password': password, 'domain_id': 'default'}
    if project:
        body['default_project_id'] = project
    uid = find_or_create('users', 'user', name, body)['id']
    # a cloud kept from before may hold another password: this one wins
    s.patch('/users/' + uid, json={'user': {'password': password}},
            endpoint_filter=EP)
    return uid


roles = {r: find_or_create('roles', 'role', r, {'name': r})['id']
         for r in ('admin', 'member', 'reader', 'creator')}
projects = {p: find_or_create('projects', 'project', p,
                              {'name': p, 'domain_id': 'default'})['id']
            for p in ('service', 'demo', 'other')}

# The admin also holds admin in every project, as an auditor account would:
# Barbican lists only the token's project's secrets, and Zed's (legacy)
# Barbican policy lets admin, creator or observer list them, not member.
admin_id = get('/users', name='admin')['users'][0]['id']
for p in ('demo', 'other', 'service'):
    grant(projects[p], admin_id, roles['admin'])

for name, project, extra in (('demo', 'demo', ['creator']),
                             ('demo2', 'demo', []),
                             ('other', 'other', ['creator'])):
    uid = user(name, 'vtpmctl-dc-%s-pw' % name, projects[project])  # clouds.yaml.in
    for r in ['member'] + extra:
        grant(projects[project], uid, roles[r])

SERVICES = [
    ('glance', 'image', 'http://127.0.0.1:9292'),
    ('placement', 'placement', 'http://127.0.0.1:8778'),
    ('barbican', 'key-manager', 'http://127.0.0.1:9311'),
    ('nova', 'compute', 'http://127.0.0.1:8774/v2.1'),
    # not Neutron: devcloud/neutron_emptylists.py answers empty lists
    ('neutron', 'network', 'http://127.0.0.1:9696'),
]
for name, stype, url in SERVICES:
    grant(projects['service'], user(name, SVC_PASS), roles['admin'])
    svcs = get('/services', type=stype)['services']
    svc = svcs[0] if svcs else post('/services', {'service': {
        'name': name, 'type': stype, 'enabled': True}})['service']
    have = {e['interface']
            for e in get('/endpoints', service_id=svc['id'])['endpoints']}
    for iface in ('public', 'internal', 'admin'):
        if iface not in have:
            post('/endpoints', {'endpoint': {
                'service_id': svc['id'], 'interface': iface, 'url': url,
                'region_id': REGION, 'enabled': True}})
print('keystone setup done: projects %s' % sorted(projects))
