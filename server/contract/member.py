#!/usr/bin/env python3
"""Makes the member the contract run speaks as, on a running kizuna-server with the mock LINE
platform: a LINE user, a fresh ID token, a session, two uploads and a registered profile (so that
my-info answers with every field filled), plus one upload left unclaimed; the member is also on
the reviewers list, so that the review console's calls answer for real.

Prints shell assignments (KIZUNA_MEMBER_ID, KIZUNA_ID_TOKEN, KIZUNA_SESSION, KIZUNA_MEMBER_FILE)
for `eval`. Standard library only: it runs before and outside schemathesis's virtualenv.
"""

import json
import secrets
import struct
import sys
import urllib.request
import zlib


def call(base, method, path, body=None, headers=None, raw=None, content_type=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", content_type or "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read().decode()
        return json.loads(text) if text else None


def png(width, height, seed):
    """A small RGB PNG with a gradient: a real image the server decodes and re-encodes."""
    rows = b"".join(
        b"\0" + bytes(
            value
            for x in range(width)
            for value in ((x * 255 // width + seed) % 256, y * 255 // height, (x + y) % 256)
        )
        for y in range(height)
    )

    def chunk(kind, payload):
        return (struct.pack(">I", len(payload)) + kind + payload
                + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def upload(base, session, seed):
    boundary = "kizuna" + secrets.token_hex(8)
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.png\"\r\n"
        "Content-Type: image/png\r\n\r\n"
    ).encode() + png(48, 32, seed) + f"\r\n--{boundary}--\r\n".encode()
    answer = call(base, "POST", "/api/file/tempUpload", raw=body,
                  content_type=f"multipart/form-data; boundary={boundary}",
                  headers={"Authorization": f"Bearer {session}"})
    return answer["fileName"]


def register(base, display_name):
    """A LINE user with a session, a registered profile and one spare upload."""
    line_id = "U" + secrets.token_hex(16)
    call(base, "POST", "/__mock/line/users",
         {"userId": line_id, "displayName": display_name, "friend": True})
    id_token = call(base, "POST", "/__mock/line/id-token", {"userId": line_id})["idToken"]
    session = call(base, "POST", "/api/user/login", {"account": line_id, "password": line_id},
                   headers={"X-Line-Id-Token": id_token})["token"]
    photo = upload(base, session, 0)
    employee_id = upload(base, session, 90)
    spare = upload(base, session, 180)
    profile = {
        "account": line_id, "password": line_id,
        "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
        "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
        "achievement": "Led the payments migration", "height": 163,
        "incomeRange": "INCOME_100_150", "birthday": "1995-03-14", "school": "NTU",
        "education": "MASTER", "marriageRecord": 0, "hasChildren": 0, "smoke": 0,
        "tattoo": "NONE", "drink": 1,
        "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
        "personalityTagIds": [101, 104], "exerciseTagIds": [204], "hobbyTagIds": [301, 310],
        "marriageTypeTagIds": [402], "fertilityPlanTagIds": [502], "petTagIds": [602],
        "datingQuestion": "Favourite trail?", "dailyLife": "Code, climb, cook.",
        "surprisePoint": "I can juggle.", "city": "TPE", "address": "Da'an District",
        "latitude": 25.026, "longitude": 121.543, "recommendDistanceKm": 30,
        "feedback": "A friend told me", "mbti": "INTJ",
        "reviewLink": "https://www.linkedin.com/in/mei", "verifyDescription": "Team lead",
        "verifyTempFileName": employee_id, "verifyMethod": "EMPLOYEE_ID",
        "photoNameList": [photo],
        "valueItem": [{"type": "HEIGHT", "from": 170, "to": 190},
                      {"type": "EDUCATION", "value": "BACHELOR"}],
    }
    call(base, "POST", "/api/user-profile", profile, headers={"X-Line-Id-Token": id_token})
    return line_id, id_token, session, photo, spare


def main():
    base = sys.argv[1].rstrip("/")
    line_id, id_token, session, photo, spare = register(base, "Contract member")
    call(base, "PUT", "/api/user-profile/avatar", {"avatar": photo},
         headers={"Authorization": f"Bearer {session}"})
    # Also a reviewer (the mock's reviewers list), so that the review console's calls answer for
    # real, with another member's profile to review (nobody reviews their own).
    call(base, "POST", "/__mock/reviewers", {"userId": line_id})
    register(base, "Another member")
    for name, value in [("KIZUNA_MEMBER_ID", line_id), ("KIZUNA_ID_TOKEN", id_token),
                        ("KIZUNA_SESSION", session), ("KIZUNA_MEMBER_FILE", spare)]:
        print(f"export {name}='{value}'")


if __name__ == "__main__":
    main()
