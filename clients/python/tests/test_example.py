"""The example runs as its README says and ends in pass after one retry."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

from . import harness

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "agent_loop.py")


class ExampleTest(unittest.TestCase):
    """examples/agent_loop.py against the server."""

    def test_agent_loop_passes_after_one_retry(self) -> None:
        srv = harness.server()
        env = dict(os.environ, VOUCH_SERVER=srv.url, VOUCH_API_KEY=srv.api_key or "")
        done = subprocess.run(
            [sys.executable, EXAMPLE], env=env, capture_output=True, text=True, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lines = done.stdout.splitlines()
        self.assertTrue(lines[0].startswith("attempt 1: retry (retry)"), done.stdout)
        self.assertIn('lacks 1 of 2 required sections: "Upgrading"', done.stdout)
        self.assertTrue(any(x.startswith("attempt 2: pass (accept)") for x in lines), done.stdout)
        self.assertEqual(lines[-1], "result: pass after 1 retry")


if __name__ == "__main__":
    unittest.main()
