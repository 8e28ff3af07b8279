#!/usr/bin/python3
"""A desktop notification server for the tests (test_ask_desktop.py).

It owns org.freedesktop.Notifications on the session bus named by
DBUS_SESSION_BUS_ADDRESS, records every call it gets as one JSON line in
RECORD, and answers each notification as --act says:

  allow, deny   invokes that action (ActionInvoked), as a click would
  close         closes it without an action (NotificationClosed, reason 2)
  none          leaves it on the screen

--no-actions leaves "actions" out of its capabilities. It prints "ready"
once it owns the name. Needs python3-dbus and python3-gi.
"""
import argparse
import json
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IFACE = "org.freedesktop.Notifications"


def plain(v):
    """A D-Bus value as plain JSON."""
    if isinstance(v, (dbus.Boolean,)):
        return bool(v)
    if isinstance(v, (dbus.Byte, dbus.Int16, dbus.Int32, dbus.Int64,
                      dbus.UInt16, dbus.UInt32, dbus.UInt64)):
        return int(v)
    if isinstance(v, dbus.Dictionary):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, dbus.Array):
        return [plain(x) for x in v]
    return str(v)


class Server(dbus.service.Object):
    def __init__(self, bus, args):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.args = args
        self.next_id = 0
        self.open = set()

    def record(self, **row):
        with open(self.args.record, "a") as f:
            f.write(json.dumps(row) + "\n")

    @dbus.service.method(IFACE, out_signature="as")
    def GetCapabilities(self):
        self.record(call="GetCapabilities")
        caps = ["body", "body-markup"]
        if not self.args.no_actions:
            caps.append("actions")
        return caps

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i",
                         out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints,
               expire):
        self.next_id += 1
        nid = self.next_id
        self.open.add(nid)
        self.record(call="Notify", id=nid, app=str(app), icon=str(icon),
                    summary=str(summary), body=str(body),
                    actions=plain(actions), hints=plain(hints),
                    expire=int(expire))
        act = self.args.act
        if act in ("allow", "deny"):
            GLib.timeout_add(100, self.invoke, nid, act)
        elif act == "close":
            GLib.timeout_add(100, self.close, nid, 2)
        return nid

    @dbus.service.method(IFACE, in_signature="u")
    def CloseNotification(self, nid):
        self.record(call="CloseNotification", id=int(nid))
        if nid in self.open:
            self.close(nid, 3)

    @dbus.service.method(IFACE, out_signature="ssss")
    def GetServerInformation(self):
        return ("lnk-test", "lnk", "1", "1.2")

    @dbus.service.signal(IFACE, signature="us")
    def ActionInvoked(self, nid, key):
        pass

    @dbus.service.signal(IFACE, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    def invoke(self, nid, key):
        self.record(call="invoked", id=nid, key=key)
        self.ActionInvoked(dbus.UInt32(nid), key)
        return False

    def close(self, nid, reason):
        self.record(call="closed", id=nid, reason=reason)
        self.open.discard(nid)
        self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(reason))
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", required=True)
    ap.add_argument("--act", default="none",
                    choices=["allow", "deny", "close", "none"])
    ap.add_argument("--no-actions", action="store_true")
    args = ap.parse_args()
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(IFACE, bus, do_not_queue=True)
    Server(bus, args)
    print("ready", flush=True)
    GLib.MainLoop().run()
    del name


if __name__ == "__main__":
    sys.exit(main())
