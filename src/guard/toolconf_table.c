/* Rule O's one table (toolconf.h): the configuration files of other
 * tools, the home's and a project's, and the keys of a project's kept
 * files that name what runs. */
#include "common/util.h"
#include "guard/toolconf_int.h"

/* The keys of a project's kept files that name what runs. */
static const char *const yarn_paths[] = {"yarnPath", "path", "yarn-path", NULL};
static const char *const npm_paths[] = {"script-shell",	 "init-module",
					"onload-script", "globalconfig",
					"userconfig",	 NULL};
static const char *const npm_commands[] = {
    "node-options", "shell", "git", "editor", "browser", "viewer", NULL};
static const char *const cargo_commands[] = {"rustc-wrapper",
					     "rustc-workspace-wrapper",
					     "runner",
					     "rustc",
					     "rustdoc",
					     "linker",
					     "ar",
					     "credential-provider",
					     "global-credential-providers",
					     NULL};
/* direnv's stdlib: what it sources or loads into the environment (no
 * new `direnv allow` is asked when those change). Not what PATH_add puts
 * on PATH: that is most often a folder the build writes
 * (node_modules/.bin), which a kept folder would break. */
static const char *const direnv_paths[] = {
    "source_env", "source_env_if_exists", "source", ".",
    "dotenv",	  "dotenv_if_exists",	  NULL};
/* a hook's command, its arguments (pre-commit's args), and lefthook's
 * files command (its output names the files a command runs on) */
static const char *const hook_commands[] = {"entry", "run", "args", "files",
					    NULL};
/* lefthook merges the configurations extends names, and runs the scripts
 * of its source_dir */
static const char *const lefthook_paths[] = {"extends", "source_dir",
					     "source_dir_local", NULL};
/* VS Code (and its forks) run these from the workspace as it opens: an
 * interpreter, a language server, a tool its extensions start */
static const char *const vscode_paths[] = {
    "python.defaultInterpreterPath", "python.pythonPath", "typescript.tsdk",
    "eslint.nodePath", "rust-analyzer.server.path", "clangd.path", "go.goroot",
    "java.jdt.ls.java.home", "python.venvPath", "deno.path",
    "prettier.prettierPath", "biome.lspBin", "ruff.interpreter", "ruff.path",
    "pylint.path", "flake8.path", "mypy-type-checker.path",
    "black-formatter.path", "isort.path", "rust-analyzer.check.overrideCommand",
    "go.alternateTools", "go.toolsGopath",
    /* a nested object's program: a terminal profile's, a JDK's */
    "path", NULL};

static const struct tool_conf confs[] = {
    {"ssh",
     TC_SSH,
     TC_BASE_NONE,
     "~/.ssh",
     {"~/.ssh/config"},
     "your ssh configuration names it: ssh runs it, loads it or trusts "
     "it (a git fetch over ssh too)"},
    {"ssh",
     TC_SSH,
     TC_BASE_NONE,
     "/etc/ssh",
     {"/etc/ssh/ssh_config"},
     "the system's ssh configuration names it: ssh runs it, loads it or "
     "trusts it"},
    {"aws",
     TC_EQ,
     TC_BASE_NONE,
     NULL,
     {"$AWS_CONFIG_FILE", "~/.aws/config", "$AWS_SHARED_CREDENTIALS_FILE",
      "~/.aws/credentials"},
     "your AWS configuration names it: aws and every AWS SDK run it "
     "(credential_process) or trust it"},
    {"kubectl",
     TC_YAML,
     TC_BASE_DIR,
     NULL,
     {"$KUBECONFIG:", "~/.kube/config"},
     "your kubeconfig names it: kubectl runs it (a user's exec command) "
     "or trusts it"},
    {"npm",
     TC_EQ,
     TC_BASE_NONE,
     NULL,
     {"$NPM_CONFIG_USERCONFIG", "$npm_config_userconfig", "~/.npmrc",
      "$NPM_CONFIG_GLOBALCONFIG", "$npm_config_globalconfig", "/etc/npmrc",
      "/usr/local/etc/npmrc"},
     "your npm configuration names it: npm runs it (script-shell, "
     "init-module) or trusts it"},
    {"cargo",
     TC_EQ,
     TC_BASE_PARENT,
     NULL,
     {"$CARGO_HOME/config.toml", "$CARGO_HOME/config", "~/.cargo/config.toml",
      "~/.cargo/config"},
     "your cargo configuration names it: cargo runs it (rustc-wrapper, a "
     "runner, a linker)"},
    {"gh",
     TC_YAML,
     TC_BASE_NONE,
     NULL,
     {"$GH_CONFIG_DIR/config.yml", "$XDG_CONFIG_HOME/gh/config.yml",
      "~/.config/gh/config.yml"},
     "your gh configuration names it: gh runs it (an alias, the editor, "
     "the pager)"},
    {"pip",
     TC_EQ,
     TC_BASE_NONE,
     NULL,
     {"$PIP_CONFIG_FILE", "$XDG_CONFIG_HOME/pip/pip.conf",
      "~/.config/pip/pip.conf", "~/.pip/pip.conf", "/etc/pip.conf",
      "/etc/xdg/pip/pip.conf"},
     "your pip configuration names it: pip trusts it (a CA bundle, a "
     "folder of packages to install)"},
    {"sh",
     TC_SHELL,
     TC_BASE_NONE,
     NULL,
     {"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile",
      "~/.bash_aliases", "$BASH_ENV", "$ENV"},
     "your shell's startup files source or run it at every start (an "
     "installer's line: conda, gcloud, emsdk)"},
    {"zsh",
     TC_SHELL,
     TC_BASE_NONE,
     NULL,
     {"~/.zshrc", "~/.zshenv", "~/.zprofile", "~/.zlogin", "$ZDOTDIR/.zshrc",
      "$ZDOTDIR/.zshenv", "$ZDOTDIR/.zprofile"},
     "zsh's startup files source or run it at every start (a plugin, an "
     "installer's line)"},
    {"fish",
     TC_SHELL,
     TC_BASE_NONE,
     NULL,
     {"~/.config/fish/config.fish", "~/.config/fish/conf.d/*.fish",
      "$XDG_CONFIG_HOME/fish/config.fish"},
     "fish's startup files source or run it at every start (a plugin, "
     "fish_add_path)"},
    {"yarn",
     TC_YAML,
     TC_BASE_DIR,
     NULL,
     {"./.yarnrc.yml"},
     "the project's .yarnrc.yml names it: yarn runs it (yarnPath, a "
     "plugin)",
     yarn_paths,
     NULL,
     true},
    {"yarn",
     TC_SSH,
     TC_BASE_DIR,
     NULL,
     {"./.yarnrc"},
     "the project's .yarnrc names it: yarn runs it (yarn-path)",
     yarn_paths,
     NULL,
     true},
    {"npm",
     TC_EQ,
     TC_BASE_DIR,
     NULL,
     {"./.npmrc"},
     "the project's .npmrc names it: npm runs it (script-shell, "
     "node-options)",
     npm_paths,
     npm_commands,
     true},
    {"cargo",
     TC_EQ,
     TC_BASE_PARENT,
     NULL,
     {"./.cargo/config.toml", "./.cargo/config"},
     "the project's cargo configuration names it: cargo runs it "
     "(rustc-wrapper, a runner, a linker)",
     NULL,
     cargo_commands,
     true},
    {"direnv",
     TC_SHELL,
     TC_BASE_DIR,
     NULL,
     {"./.envrc", "./.envrc.local"},
     "the project's .envrc names it: direnv sources it at your next cd, "
     "asking no new direnv allow",
     direnv_paths,
     NULL,
     true},
    {"pre-commit",
     TC_YAML,
     TC_BASE_DIR,
     NULL,
     {"./.pre-commit-config.yaml"},
     "the project's .pre-commit-config.yaml names it: pre-commit runs it at "
     "your next commit (a local hook's entry)",
     NULL,
     hook_commands,
     true},
    {"lefthook",
     TC_YAML,
     TC_BASE_DIR,
     NULL,
     {"./lefthook.yml", "./.lefthook.yml", "./lefthook.yaml",
      "./.lefthook.yaml", "./lefthook-local.yml", "./lefthook-local.yaml"},
     "the project's lefthook configuration names it: lefthook runs it at "
     "your next commit",
     lefthook_paths,
     hook_commands,
     true},
    {"code",
     TC_JSON,
     TC_BASE_PARENT,
     NULL,
     {"./.vscode/settings.json"},
     "the project's .vscode/settings.json names it: VS Code runs it as the "
     "folder opens (an interpreter, a language server)",
     vscode_paths,
     NULL,
     true},
};

const struct tool_conf *toolconf_table(size_t *n)
{
	*n = ARRAY_SIZE(confs);
	return confs;
}
