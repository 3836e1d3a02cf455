"""A real SMTP server for kizuna-server's tests.

aiosmtpd listens on 127.0.0.1:PORT and writes each accepted message into DIR as one JSON file
{mailFrom, rcptTos, subject, from, to, text, raw} (headers and body decoded by Python's email
package), written atomically (temp file + rename) so that a reader never sees half a message.
Prints "ready" once it accepts connections; stops on SIGTERM or SIGINT.

Usage: capture.py PORT DIR
"""

import email
import email.policy
import json
import os
import signal
import sys
import threading
import time
import uuid

from aiosmtpd.controller import Controller


class Capture:
    def __init__(self, directory):
        self.directory = directory

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": list(envelope.rcpt_tos),
            "subject": str(message.get("subject", "")),
            "from": str(message.get("from", "")),
            "to": str(message.get("to", "")),
            "text": body.get_content() if body is not None else "",
            "raw": envelope.content.decode("utf-8", errors="replace"),
        }
        name = f"{time.time_ns()}-{uuid.uuid4().hex}.json"
        temp = os.path.join(self.directory, name + ".tmp")
        with open(temp, "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.rename(temp, os.path.join(self.directory, name))
        return "250 Message accepted for delivery"


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    controller = Controller(Capture(directory), hostname="127.0.0.1", port=port)
    controller.start()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print("ready", flush=True)
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
