#include "guard/gitkeys.h"

#include <string.h>

#include "common/util.h"

/* From git-config(1): every key whose value git runs, or reads to decide
 * what it runs or trusts. core.hooksPath and the includes are here too;
 * protect.c follows an include into the file it names. */
static const struct git_key keys[] = {
    {"include", "path", GIT_INCLUDE, "include.path",
     "a git config includes it: git runs what it sets"},
    {"includeif", "path", GIT_INCLUDE, "includeIf.<condition>.path",
     "a git config includes it: git runs what it sets"},
    {"core", "hookspath", GIT_PATH, "core.hooksPath",
     "git's core.hooksPath names it: git runs the hooks it holds"},
    {"init", "templatedir", GIT_PATH, "init.templateDir",
     "git's init.templateDir names it: git copies its hooks into every "
     "repository it makes or clones"},
    {"core", "attributesfile", GIT_PATH, "core.attributesFile",
     "git's core.attributesFile names it: it chooses the filter and diff "
     "drivers git runs"},
    {"blame", "ignorerevsfile", GIT_PATH, "blame.ignoreRevsFile",
     "git's blame.ignoreRevsFile names it: git blame reads it, and prints "
     "a line it cannot read as a commit (a link to any file of yours)"},
    {"mailmap", "file", GIT_PATH, "mailmap.file",
     "git's mailmap.file names it: git log and git shortlog read it"},
    {"gpg", "allowedsignersfile", GIT_PATH, "gpg.ssh.allowedSignersFile",
     "git's gpg.ssh.allowedSignersFile names it: git trusts the signing keys "
     "it lists"},
    {"core", "pager", GIT_COMMAND, "core.pager",
     "git's core.pager names it: git runs it to show its output"},
    {"core", "editor", GIT_COMMAND, "core.editor",
     "git's core.editor names it: git runs it to edit messages"},
    {"core", "sshcommand", GIT_COMMAND, "core.sshCommand",
     "git's core.sshCommand names it: git runs it to reach a remote"},
    {"core", "askpass", GIT_COMMAND, "core.askPass",
     "git's core.askPass names it: git runs it to ask a password"},
    {"core", "fsmonitor", GIT_COMMAND, "core.fsmonitor",
     "git's core.fsmonitor names it: git runs it at every status"},
    {"core", "gitproxy", GIT_COMMAND, "core.gitProxy",
     "git's core.gitProxy names it: git runs it to reach a remote"},
    {"credential", "helper", GIT_COMMAND, "credential[.<url>].helper",
     "git's credential[.<url>].helper names it: git runs it and gives it your "
     "credentials"},
    {"diff", "external", GIT_COMMAND, "diff.external",
     "git's diff.external names it: git runs it for every diff"},
    {"diff", "command", GIT_COMMAND, "diff.<driver>.command",
     "git's diff.<driver>.command names it: git runs it as a diff driver"},
    {"diff", "textconv", GIT_COMMAND, "diff.<driver>.textconv",
     "git's diff.<driver>.textconv names it: git runs it for every diff"},
    {"difftool", "cmd", GIT_COMMAND, "difftool.<tool>.cmd",
     "git's difftool.<tool>.cmd names it: git difftool runs it"},
    {"difftool", "path", GIT_COMMAND, "difftool.<tool>.path",
     "git's difftool.<tool>.path names it: git difftool runs it"},
    {"mergetool", "cmd", GIT_COMMAND, "mergetool.<tool>.cmd",
     "git's mergetool.<tool>.cmd names it: git mergetool runs it"},
    {"mergetool", "path", GIT_COMMAND, "mergetool.<tool>.path",
     "git's mergetool.<tool>.path names it: git mergetool runs it"},
    {"merge", "driver", GIT_COMMAND, "merge.<driver>.driver",
     "git's merge.<driver>.driver names it: git runs it as a merge driver"},
    {"filter", "clean", GIT_COMMAND, "filter.<driver>.clean",
     "git's filter.<driver>.clean names it: git runs it at every add"},
    {"filter", "smudge", GIT_COMMAND, "filter.<driver>.smudge",
     "git's filter.<driver>.smudge names it: git runs it at every checkout"},
    {"filter", "process", GIT_COMMAND, "filter.<driver>.process",
     "git's filter.<driver>.process names it: git runs it as a filter"},
    {"gpg", "program", GIT_COMMAND, "gpg[.<format>].program",
     "git's gpg[.<format>].program names it: git runs it to sign and verify"},
    {"gpg", "defaultkeycommand", GIT_COMMAND, "gpg.ssh.defaultKeyCommand",
     "git's gpg.ssh.defaultKeyCommand names it: git runs it to sign"},
    {"sequence", "editor", GIT_COMMAND, "sequence.editor",
     "git's sequence.editor names it: git rebase runs it"},
    {"pager", NULL, GIT_COMMAND, "pager.<command>",
     "git's pager.<command> names it: git runs it to show a command's output"},
    {"interactive", "difffilter", GIT_COMMAND, "interactive.diffFilter",
     "git's interactive.diffFilter names it: git add -p runs it"},
    {"web", "browser", GIT_COMMAND, "web.browser",
     "git's web.browser names it: git web--browse runs it"},
    {"browser", "cmd", GIT_COMMAND, "browser.<tool>.cmd",
     "git's browser.<tool>.cmd names it: git web--browse runs it"},
    {"browser", "path", GIT_COMMAND, "browser.<tool>.path",
     "git's browser.<tool>.path names it: git web--browse runs it"},
    {"man", "cmd", GIT_COMMAND, "man.<tool>.cmd",
     "git's man.<tool>.cmd names it: git help runs it"},
    {"man", "path", GIT_COMMAND, "man.<tool>.path",
     "git's man.<tool>.path names it: git help runs it"},
    {"sendemail", "sendmailcmd", GIT_COMMAND, "sendemail.sendmailCmd",
     "git's sendemail.sendmailCmd names it: git send-email runs it"},
    {"sendemail", "smtpserver", GIT_COMMAND, "sendemail.smtpServer",
     "git's sendemail.smtpServer names it: git send-email runs it when it is "
     "a path"},
    {"sendemail", "tocmd", GIT_COMMAND, "sendemail.toCmd",
     "git's sendemail.toCmd names it: git send-email runs it"},
    {"sendemail", "cccmd", GIT_COMMAND, "sendemail.ccCmd",
     "git's sendemail.ccCmd names it: git send-email runs it"},
    {"uploadpack", "packobjectshook", GIT_COMMAND, "uploadpack.packObjectsHook",
     "git's uploadpack.packObjectsHook names it: git upload-pack runs it"},
    {"remote", "uploadpack", GIT_COMMAND, "remote.<name>.uploadpack",
     "git's remote.<name>.uploadpack names it: git fetch runs it"},
    {"remote", "receivepack", GIT_COMMAND, "remote.<name>.receivepack",
     "git's remote.<name>.receivepack names it: git push runs it"},
    {"core", "alternaterefscommand", GIT_COMMAND, "core.alternateRefsCommand",
     "git's core.alternateRefsCommand names it: git runs it to list an "
     "alternate's refs"},
    {"guitool", "cmd", GIT_COMMAND, "guitool.<name>.cmd",
     "git's guitool.<name>.cmd names it: git gui runs it from its Tools "
     "menu"},
    {"imap", "tunnel", GIT_COMMAND, "imap.tunnel",
     "git's imap.tunnel names it: git imap-send runs it"},
    {"tar", "command", GIT_COMMAND, "tar.<format>.command",
     "git's tar.<format>.command names it: git archive runs it"},
    {"instaweb", "httpd", GIT_COMMAND, "instaweb.httpd",
     "git's instaweb.httpd names it: git instaweb runs it"},
    {"instaweb", "browser", GIT_COMMAND, "instaweb.browser",
     "git's instaweb.browser names it: git instaweb runs it"},
    {"trailer", "command", GIT_COMMAND, "trailer.<token>.command",
     "git's trailer.<token>.command names it: git interpret-trailers runs "
     "it"},
    {"trailer", "cmd", GIT_COMMAND, "trailer.<token>.cmd",
     "git's trailer.<token>.cmd names it: git commit --trailer runs it"},
    {"svn", "authorsprog", GIT_COMMAND, "svn.authorsProg",
     "git's svn.authorsProg names it: git svn runs it"},
    {"lfs", "path", GIT_COMMAND, "lfs.customtransfer.<name>.path",
     "git's lfs.customtransfer.<name>.path names it: git lfs runs it"},
    {"http", "sslcainfo", GIT_PATH, "http.sslCAInfo",
     "git's http.sslCAInfo names it: git trusts the authorities it lists"},
    {"alias", NULL, GIT_BANG, "alias.<name>",
     "git's alias.<name> names it: git runs the alias's command"},
    {"submodule", "update", GIT_BANG, "submodule.<name>.update",
     "git's submodule.<name>.update names it: git submodule update runs it"},
};

const struct git_key *git_keys(size_t *n)
{
	*n = ARRAY_SIZE(keys);
	return keys;
}

const struct git_key *git_key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].section, section) == 0 &&
		    (!keys[i].key || strcmp(keys[i].key, key) == 0))
			return &keys[i];
	return NULL;
}
