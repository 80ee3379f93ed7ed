"""Read a subunit v2 stream on stdin; print each test's outcome as JSON.

Run with the interpreter of the plugin's venv (:mod:`tests.watcher_tempest.pluginenv`),
which has python-subunit and testtools; the project's venv has neither. Prints
``{test id: {"status": ..., "details": ...}}``, the status as subunit names it
(``success``, ``fail``, ``skip``, ...) and the details the test attached (its
traceback, a skip's reason). Test ids lose tempest's ``[id-…,smoke]`` tags.
"""

import json
import sys

import subunit
import testtools


def main() -> None:
    outcomes = {}

    def record(test: dict) -> None:
        details = "".join(
            content.as_text()
            for name, content in test["details"].items()
            if name != "pythonlogging"
        )
        outcomes[test["id"].split("[", 1)[0]] = {"status": test["status"], "details": details}

    stream = subunit.ByteStreamToStreamResult(sys.stdin.buffer, non_subunit_name="stdout")
    result = testtools.StreamToDict(record)
    result.startTestRun()
    try:
        stream.run(result)
    finally:
        result.stopTestRun()
    json.dump(outcomes, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
