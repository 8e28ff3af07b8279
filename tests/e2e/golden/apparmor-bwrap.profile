# lnk: lets bubblewrap, and only it, create user namespaces where
# AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns=1)
abi <abi/4.0>,
include <tunables/global>

profile bwrap /usr/bin/bwrap flags=(unconfined) {
  userns,

  # Site-specific additions and overrides. See local/README for details.
  include if exists <local/bwrap>
}
