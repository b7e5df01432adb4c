#!/usr/bin/python3
"""A stand-in for Neutron that answers every collection GET with an empty
list. It is NOT Neutron: no auth, no state, no writes.

Zed has no nova-network; servers booted with networks='none' (microversion
>= 2.37) allocate no ports, but nova-compute still lists ports by device_id
on delete. Those calls only need an empty answer.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 9696


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = urlparse(self.path).path.rstrip('/')
        if path in ('', '/'):
            return self._send(200, {'versions': [{
                'id': 'v2.0', 'status': 'CURRENT', 'links': [{
                    'rel': 'self',
                    'href': 'http://127.0.0.1:%d/v2.0/' % PORT}]}]})
        last = path.split('/')[-1]
        if last.endswith('.json'):
            last = last[:-5]
        if last == 'v2.0':
            return self._send(200, {'resources': []})
        if last.endswith('s'):  # collections are plural
            return self._send(200, {last.replace('-', '_'): []})
        return self._not_found()

    def _not_found(self):
        n = int(self.headers.get('Content-Length') or 0)
        if n:
            self.rfile.read(n)
        self._send(404, {'NeutronError': {
            'type': 'NotFound', 'detail': '',
            'message': 'devcloud neutron stand-in: empty lists only'}})

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_found

    def log_message(self, fmt, *args):
        sys.stdout.write('%s %s\n' % (self.log_date_time_string(), fmt % args))
        sys.stdout.flush()


ThreadingHTTPServer(('127.0.0.1', PORT), Handler).serve_forever()
