"""Tests of the Python client: against a real ``vouch serve`` (see
:mod:`tests.harness`) and against stub servers for what a real one does not
do on demand (429, 503)."""
