/* THE table of what runs or is trusted later, with the reason for each
 * row (flags.h). Every row is a class of file a tool on the host runs,
 * sources or trusts after the sandbox ended: docs/runs-outside.md's
 * "Open" rows point here. A new class is a new row, never a name added
 * somewhere else.
 *
 * Over 1000 lines: the table is one, with each row's reason beside it,
 * so that a reviewer reads every class of file in one place; split, a
 * row could hide in the other half.
 */
#include "changes/flags.h"

#include "changes/changes.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"
#include "policy/dotfiles.h"

/* A manifest or a git config the program wrote is read at most this far:
 * the file is the program's, its size too. */
#define FLAG_READ_MAX (256 * 1024)

/* Folders counted apart in the summary; the first ones also hold what
 * others wrote (vendored: a package's own Makefile or setup.py is not the
 * project's, and a package install writes thousands). */
static const char *const bulky[CHANGES_NBULKY] = {
    "node_modules", ".git",   ".venv", "venv",
    "__pycache__",  "target", ".tox",  ".cache",
};

static const char *const vendored[] = {
    "node_modules", "site-packages", "dist-packages", "__pycache__",
    "target",	    ".tox",	     ".cache",	      "bower_components",
};

struct row {
	const char *name;
	const char *reason;
};

/* Build files and manifests: they run at the user's next build, install
 * or test, as the user, outside any sandbox. */
static const struct row build_files[] = {
    {"Makefile", "runs at your next make"},
    {"makefile", "runs at your next make"},
    {"GNUmakefile", "runs at your next make"},
    {"CMakeLists.txt", "runs at the next cmake configure (and an editor's "
		       "CMake extension on open)"},
    {"meson.build", "its run_command() runs at the next meson setup"},
    {"configure", "runs at ./configure"},
    {"setup.py", "runs at the next pip install or build of this folder"},
    {"setup.cfg", "names what the next pip install of this folder runs"},
    {"pyproject.toml", "names the build backend the next pip install of this "
		       "folder runs"},
    {"conftest.py", "pytest runs it at the next test run in this folder"},
    {"noxfile.py", "runs at the next nox"},
    {"tox.ini", "names the commands the next tox runs"},
    {"build.rs", "cargo compiles and runs it at the next build, check or "
		 "test (rust-analyzer too, when an editor opens the folder)"},
    {"Cargo.toml", "names the build script and the dependencies cargo builds "
		   "and runs at the next build"},
    {"build.gradle", "runs at the next gradle build (and an editor's Java "
		     "extension on open)"},
    {"build.gradle.kts", "runs at the next gradle build (and an editor's "
			 "Java extension on open)"},
    {"settings.gradle", "runs at the next gradle build"},
    {"settings.gradle.kts", "runs at the next gradle build"},
    {"gradlew", "runs at the next ./gradlew"},
    {"pom.xml", "names the plugins the next mvn runs"},
    {"Rakefile", "runs at the next rake"},
    {"Gemfile", "Ruby code bundler runs at the next bundle"},
    {"latexmkrc", "Perl the next latexmk runs (an editor's LaTeX extension "
		  "at each change)"},
    {"ansible.cfg", "ansible and ansible-playbook started here load the "
		    "plugin folders it names and run its vault password "
		    "program"},
    {"gradle.properties", "its org.gradle.jvmargs run at the next gradle "
			  "(and an editor's Gradle import on open)"},
    {"gradle-wrapper.properties", "names the Gradle ./gradlew (and an "
				  "editor's Gradle import) downloads and "
				  "runs"},
    {".pnp.cjs", "yarn loads it into every yarn run and node script"},
    {".pnp.loader.mjs", "yarn loads it into every yarn run and node script "
			"(ESM)"},
    {".pnp.js", "yarn loads it into every yarn run and node script"},
    {"jupyter_server_config.py", "Jupyter runs it when it starts in this "
				 "folder"},
    {"jupyter_notebook_config.py", "Jupyter runs it when it starts in this "
				   "folder"},
    {"jupyter_lab_config.py", "Jupyter runs it when it starts in this "
			      "folder"},
    {"gbp.conf", "gbp buildpackage runs the hooks it names"},
    {"Taskfile.yml", "names the commands the next task runs"},
    /* the other names the same tools take: a recipe under any of them
     * runs as well (just's, in any letter case, in flags_check) */
    {"Taskfile.yaml", "names the commands the next task runs"},
    {"taskfile.yml", "names the commands the next task runs"},
    {"taskfile.yaml", "names the commands the next task runs"},
    {"Taskfile.dist.yml", "names the commands the next task runs"},
    {"Taskfile.dist.yaml", "names the commands the next task runs"},
    {"rakefile", "runs at the next rake"},
    {"Rakefile.rb", "runs at the next rake"},
    {"rakefile.rb", "runs at the next rake"},
    {"gems.rb", "Ruby code bundler runs at the next bundle"},
    {"vagrantfile", "Ruby code vagrant runs at the next vagrant up"},
    /* build files of more tools: code they run at the next build, test
     * or save */
    {"Tiltfile", "runs the commands it names at the next tilt up"},
    {"Earthfile", "runs the commands it names at the next earthly"},
    {"build.xml", "names the tasks the next ant runs"},
    {"SConstruct", "Python the next scons runs"},
    {"SConscript", "Python the next scons runs"},
    {"wscript", "Python the next waf runs"},
    {"Snakefile", "Python the next snakemake runs"},
    {"dodo.py", "Python the next doit runs"},
    {"fabfile.py", "Python the next fab runs"},
    {"Makefile.PL", "perl runs it at the next build of this module"},
    {"Build.PL", "perl runs it at the next build of this module"},
    {"CMakePresets.json", "names the cmake and options an editor's CMake "
			  "extension runs on open"},
    {"CMakeUserPresets.json", "names the cmake and options an editor's "
			      "CMake extension runs on open"},
    {".flake8", "names the local plugins the next flake8 imports (and an "
		"editor's flake8 extension at each save)"},
    {".coveragerc", "names the plugins the next coverage run imports"},
    {".php-cs-fixer.php", "PHP the next php-cs-fixer runs (and an editor's "
			  "extension at each save)"},
    {".php-cs-fixer.dist.php", "PHP the next php-cs-fixer runs (and an "
			       "editor's extension at each save)"},
    {".golangci.yml", "names the plugins the next golangci-lint loads"},
    {".golangci.yaml", "names the plugins the next golangci-lint loads"},
    {"phpunit.xml", "names the bootstrap file the next phpunit runs"},
    /* lint-staged's, which the project's (kept) commit hook runs */
    {".lintstagedrc", "names the commands lint-staged runs at your next git "
		      "commit"},
    {".lintstagedrc.json", "names the commands lint-staged runs at your "
			   "next git commit"},
    {".lintstagedrc.yaml", "names the commands lint-staged runs at your "
			   "next git commit"},
    {".lintstagedrc.yml", "names the commands lint-staged runs at your next "
			  "git commit"},
    {"go.work", "names the modules and toolchain the next go command "
		"uses"},
    {"Setup.hs", "Haskell the next cabal build runs"},
    {"Setup.lhs", "Haskell the next cabal build runs"},
    {"cabal.project", "names the packages, sources and options the next "
		      "cabal build uses"},
    {"cabal.project.local", "names the packages, sources and options the "
			    "next cabal build uses"},
    {"stack.yaml", "names the packages and sources the next stack build "
		   "uses"},
    {"rebar.config", "names the plugins and hooks the next rebar3 runs"},
    {"phpstan.neon", "names the bootstrap files the next phpstan runs (and "
		     "an editor's extension at each save)"},
    {"phpstan.neon.dist", "names the bootstrap files the next phpstan runs "
			  "(and an editor's extension at each save)"},
    {"psalm.xml", "names the plugins the next psalm loads"},
    {"Guardfile", "Ruby the next guard runs"},
    {"Capfile", "Ruby the next cap runs"},
    {"cpanfile", "Perl the next cpanm --installdeps runs"},
    {"mkdocs.yml", "names the hooks and plugins the next mkdocs runs"},
    {"Pipfile", "names the scripts and package sources the next pipenv "
		"uses"},
    {"uv.toml", "names the index and sources the next uv installs from"},
    /* renv's: the project's .Rprofile (kept) sources it */
    {"activate.R", "R runs it at every start in this project (renv's "
		   ".Rprofile sources it)"},
    {"go.mod", "names the modules (and their generators) the next go build "
	       "fetches"},
    {"composer.json", "its scripts run at the next composer install"},
    {"pip.conf", "names the index the next pip install (in this "
		 "virtualenv) installs from"},
    {".pylintrc", "its init-hook runs at the next pylint (and an editor's "
		  "pylint extension on open)"},
    {"pylintrc", "its init-hook runs at the next pylint (and an editor's "
		 "pylint extension on open)"},
    {"pylintrc.toml", "its init-hook runs at the next pylint (and an "
		      "editor's pylint extension on open)"},
    {".pylintrc.toml", "its init-hook runs at the next pylint (and an "
		       "editor's pylint extension on open)"},
    {"pnpm-workspace.yaml", "sets the pnpmfile, the script shell and the "
			    "node options of the next pnpm install"},
    {"gradle-wrapper.jar", "./gradlew runs it at the next build"},
    {"gradle-wrapper.properties", "names the gradle ./gradlew downloads "
				  "and runs at the next build"},
    {"pytest.ini", "names the plugins the next pytest imports"},
    {"mypy.ini", "names the plugins the next mypy imports (and an editor's "
		 "mypy extension on open)"},
    {".mypy.ini", "names the plugins the next mypy imports (and an "
		  "editor's mypy extension on open)"},
    {"Vagrantfile", "Ruby code vagrant runs at the next vagrant up"},
    {"flake.nix", "its shellHook runs at the next nix develop (or direnv's "
		  "use flake)"},
    {"shell.nix", "its shellHook runs at the next nix-shell (or direnv's "
		  "use nix)"},
    {"default.nix", "runs at the next nix-build or nix-shell"},
    {"devbox.json", "its init_hook runs at the next devbox shell"},
    {"docker-compose.yml", "names the containers (privileged, or with your "
			   "folders mounted) the next docker compose up "
			   "starts"},
    {"docker-compose.yaml", "names the containers (privileged, or with "
			    "your folders mounted) the next docker compose "
			    "up starts"},
    {"compose.yml", "names the containers (privileged, or with your "
		    "folders mounted) the next docker compose up starts"},
    {"compose.yaml", "names the containers (privileged, or with your "
		     "folders mounted) the next docker compose up starts"},
    {"Package.swift", "swift runs it at the next build (and an editor's "
		      "Swift extension on open)"},
    {"build.sbt", "runs at the next sbt (and an editor's Scala extension on "
		  "open)"},
    {"mix.exs", "runs at the next mix (and an editor's Elixir extension on "
		"open)"},
    {".bazelrc", "names the commands and options the next bazel runs"},
    {"WORKSPACE", "runs at the next bazel build"},
    {"MODULE.bazel", "runs at the next bazel build"},
    {".rspec", "names the files the next rspec requires"},
    {".rubocop.yml", "names the Ruby files the next rubocop requires (and "
		     "an editor's extension on open)"},
    {"bunfig.toml", "names the scripts the next bun preloads"},
    {"deno.json", "its tasks run at the next deno task"},
    {"deno.jsonc", "its tasks run at the next deno task"},
    /* autotools' and ctest's inputs, and more tools whose file is code */
    {"configure.ac", "its esyscmd runs at the next autoreconf"},
    {"configure.in", "its esyscmd runs at the next autoreconf"},
    {"Makefile.am", "the next automake (autoreconf) makes the Makefile "
		    "make runs from it"},
    {"CTestTestfile.cmake", "the next ctest runs the commands it names"},
    {"Brewfile", "Ruby the next brew bundle runs"},
    {"Podfile", "Ruby the next pod install runs"},
    {"Fastfile", "Ruby the next fastlane runs"},
    {"tasks.py", "Python the next invoke runs"},
    {"pavement.py", "Python the next paver runs"},
    {"conanfile.py", "Python the next conan install or build runs"},
    {"xmake.lua", "Lua the next xmake runs"},
    {"premake5.lua", "Lua the next premake runs"},
    {"BUCK", "the next buck build runs the rules it names"},
    {".buckconfig", "names the commands and options the next buck build "
		    "runs"},
    {"Cakefile", "CoffeeScript the next cake runs"},
    {"Jakefile", "JavaScript the next jake runs"},
};

/* Configuration files that are programs: a tool runs them at its next
 * start, and an editor's extension as soon as the folder opens. */
static const char *const config_stems[] = {
    "eslint.config",   ".eslintrc",	     "prettier.config",
    ".prettierrc",     "vite.config",	     "vitest.config",
    "jest.config",     "webpack.config",     "rollup.config",
    "babel.config",    ".babelrc",	     "postcss.config",
    "tailwind.config", "next.config",	     "nuxt.config",
    "svelte.config",   "astro.config",	     "stylelint.config",
    ".stylelintrc",    "playwright.config",  "cypress.config",
    "tsup.config",     "commitlint.config",  "lint-staged.config",
    ".lintstagedrc",   ".mocharc",	     "karma.conf",
    "gulpfile",	       "Gruntfile",	     "vue.config",
    "metro.config",    ".commitlintrc",	     ".postcssrc",
    ".releaserc",      "release.config",     ".nycrc",
    ".c8rc",	       ".markdownlint-cli2",
};
static const char *const config_exts[] = {"js", "cjs", "mjs",
					  "ts", "cts", "mts"};

/* Modules a Python started in a folder imports from that folder first
 * (sys.path[0] is the script's folder, or the current one for -m, -c and
 * the prompt): readline at every interactive start, the rest whenever a
 * tool imports them. */
static const char *const py_shadow[] = {
    "readline",	 "rlcompleter", "os",	       "site",	     "sys",
    "re",	 "json",	"subprocess",  "typing",     "abc",
    "enum",	 "functools",	"collections", "io",	     "codecs",
    "encodings", "random",	"string",      "tempfile",   "shutil",
    "logging",	 "argparse",	"pathlib",     "socket",     "ssl",
    "http",	 "urllib",	"email",       "base64",     "hashlib",
    "copy",	 "types",	"warnings",    "inspect",    "ast",
    "tokenize",	 "token",	"keyword",     "platform",   "locale",
    "glob",	 "fnmatch",	"pip",	       "setuptools", "pkg_resources",
    "distutils", "pytest",	"_pytest",     "pdb",	     "code",
    "zipfile",	 "tarfile",	"uuid",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

const char *changes_bulky_name(size_t i)
{
	return i < CHANGES_NBULKY ? bulky[i] : NULL;
}

const char *flags_vendored_in(const char *path)
{
	for (const char *s = path; *s;) {
		size_t k = strcspn(s, "/");
		for (size_t i = 0; i < ARRAY_SIZE(vendored); i++)
			if (strlen(vendored[i]) == k &&
			    strncmp(s, vendored[i], k) == 0)
				return vendored[i];
		s += k;
		while (*s == '/')
			s++;
	}
	return NULL;
}

int flags_bulky_index(const char *name)
{
	for (size_t i = 0; i < CHANGES_NBULKY; i++)
		if (strcmp(name, bulky[i]) == 0)
			return (int)i;
	return -1;
}

/* The row of the dot-file list (the names that run outside at a write
 * folder's top) for name, or NULL. .git has rows of its own here. */
static const struct dot_file *dot_row(const char *name)
{
	if (strcmp(name, ".git") == 0 || !is_dot_file(name))
		return NULL;
	size_t n;
	const struct dot_file *d = dot_files(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

/* What programs run or obey from the user's configuration folder
 * ($XDG_CONFIG_HOME, ~/.config), known by its identity, not its name (a
 * project's fish/ folder runs nothing). Threat: ~/.config granted for a
 * tool's settings, the program leaves a file your next shell, git or
 * editor runs as you. autostart, systemd/user and environment.d are
 * session_enter's, by name. dir: the folder below the configuration
 * folder ("": the folder itself); name: the file (NULL: any file there;
 * "*.x": any file whose name ends ".x"); below: and in any folder under
 * it. */
struct config_row {
	const char *dir, *name;
	bool below;
	const char *reason;
};

static const struct config_row config_rows[] = {
    /* git's global config: core.pager, core.fsmonitor, alias.x = !..,
     * credential.helper run at your next git command anywhere */
    {"git", "config", false,
     "git's own config: git obeys it in every repository and runs the "
     "programs it names (core.pager, alias.* with '!' or an option, "
     "credential.helper)"},
    /* its global attributes choose the filter and diff drivers git runs */
    {"git", "attributes", false,
     "git's own attributes: they choose the filters and diff drivers git "
     "runs in every repository"},
    {"fish", "config.fish", false,
     "fish runs it at every start of your "
     "shell"},
    /* universal variables, read at every start: fish_user_paths puts
     * its folders first on PATH, others are functions' settings */
    {"fish", "fish_variables", false,
     "fish reads it at every start (fish_user_paths in it puts folders "
     "first on your PATH)"},
    {"fish/conf.d", NULL, false,
     "fish runs it at every start of your "
     "shell"},
    /* autoloaded: the function named by the file runs when you type its
     * name (ls.fish: at your next ls) */
    {"fish/functions", NULL, false,
     "fish runs it when you type the command it defines"},
    /* autoloaded too, at the first tab after the command it names; a
     * completion file is fish code like any other */
    {"fish/completions", NULL, false,
     "fish runs it when you press tab after the command it names"},
    /* direnv sources direnvrc and the files of lib before every .envrc */
    {"direnv", "direnvrc", false,
     "direnv runs it in your shell before "
     "every .envrc it loads"},
    {"direnv/lib", NULL, false,
     "direnv runs it in your shell before every "
     ".envrc it loads"},
    {"nvim", "init.lua", false, "Neovim runs it at every start"},
    {"nvim", "init.vim", false, "Neovim runs it at every start"},
    /* what plugin holds is sourced at every start, what lua holds when
     * init requires it */
    {"nvim/plugin", NULL, true, "Neovim runs it at every start"},
    {"nvim/lua", NULL, true,
     "Neovim runs it when your configuration requires it"},
    /* the runtime folders: after/ is sourced after the others (its
     * plugin/ at every start), ftdetect/ at every start, ftplugin/,
     * syntax/ and indent/ when a file of their type opens */
    {"nvim/after", NULL, true,
     "Neovim runs it at every start or when a file of its type opens"},
    {"nvim/ftdetect", NULL, true, "Neovim runs it at every start"},
    {"nvim/ftplugin", NULL, true,
     "Neovim runs it when a file of its type opens"},
    {"nvim/syntax", NULL, true, "Neovim runs it when a file of its type opens"},
    {"nvim/indent", NULL, true, "Neovim runs it when a file of its type opens"},
    /* tmux 3.1 reads it at the server's start; run-shell and if-shell
     * in it run commands, source-file reads the others */
    {"tmux", "tmux.conf", false,
     "tmux runs it at every start (its run-shell and if-shell run "
     "commands)"},
    {"tmux", "*.conf", false,
     "tmux runs it when your tmux.conf sources it (its run-shell and "
     "if-shell run commands)"},
    /* VS Code's (and its open builds'): settings name the programs it
     * and its extensions start (git.path, terminal profiles, an
     * interpreter's path), user tasks the commands it runs */
    {"Code/User", "settings.json", false,
     "VS Code runs the programs it names (git.path, terminal profiles, "
     "interpreters) at its next start"},
    {"Code/User", "tasks.json", false,
     "VS Code runs the commands it names as tasks (at a folder's open "
     "when a task says so)"},
    {"VSCodium/User", "settings.json", false,
     "VS Code runs the programs it names (git.path, terminal profiles, "
     "interpreters) at its next start"},
    {"VSCodium/User", "tasks.json", false,
     "VS Code runs the commands it names as tasks (at a folder's open "
     "when a task says so)"},
    {"Code - Insiders/User", "settings.json", false,
     "VS Code runs the programs it names (git.path, terminal profiles, "
     "interpreters) at its next start"},
    {"Code - Insiders/User", "tasks.json", false,
     "VS Code runs the commands it names as tasks (at a folder's open "
     "when a task says so)"},
    {"Code - OSS/User", "settings.json", false,
     "VS Code runs the programs it names (git.path, terminal profiles, "
     "interpreters) at its next start"},
    {"Cursor/User", "settings.json", false,
     "Cursor runs the programs it names (git.path, terminal profiles, "
     "interpreters) at its next start"},
    {"Cursor/User", "tasks.json", false,
     "Cursor runs the commands it names as tasks (at a folder's open "
     "when a task says so)"},
    /* a profile's settings and tasks, one folder per profile */
    {"Code/User/profiles", NULL, true,
     "VS Code runs the programs and tasks a profile's settings name"},
    /* language servers, formatters and tasks are commands it starts */
    {"zed", "settings.json", false,
     "Zed starts the language servers, formatters and commands it names"},
    {"zed", "tasks.json", false, "Zed runs the commands it names as tasks"},
    /* file managers' start-up files: their commands run at each start,
     * ranger's commands.py is Python it imports */
    {"lf", "lfrc", false, "lf runs its commands at every start"},
    {"ranger", "rc.conf", false, "ranger runs its commands at every start"},
    {"ranger", "commands.py", false, "ranger runs it (Python) at every start"},
    /* its whitelist allows .envrc files without `direnv allow` */
    {"direnv", "direnv.toml", false,
     "direnv loads every .envrc under the folders its whitelist names, "
     "unasked"},
    /* package indexes: what the next install downloads and runs */
    {"pip", "pip.conf", false,
     "pip installs (and runs the build of) packages from the index it "
     "names"},
    {"uv", "uv.toml", false, "uv installs packages from the index it names"},
    {"pypoetry", "config.toml", false,
     "Poetry installs packages from the sources it names"},
    /* its [custom] modules' commands run at each prompt it draws */
    {"", "starship.toml", false,
     "starship runs the commands of its custom modules at every prompt"},
    /* an alias starting with '!' is a shell command */
    {"gh", "config.yml", false,
     "gh runs its aliases that start with '!' as shell commands, and the "
     "editor and pager it names"},
    /* xdg-open, gio and file managers start the program it picks for a
     * file's type */
    {"", "mimeapps.list", false,
     "names the program that opens each type of file (xdg-open, your file "
     "manager, a browser's download)"},
    /* what a login, a shell or a pager runs from the folder */
    {"", "bash_completion", false,
     "bash-completion sources it in every interactive bash"},
    {"user-tmpfiles.d", NULL, false,
     "systemd-tmpfiles --user applies it at every login: it may write "
     "any file of your home (~/.bashrc)"},
    {"", "lesskey", false,
     "less reads its keys and LESSOPEN (a command it runs on every file "
     "it shows) from it"},
    {"systemd", "user.conf", false,
     "systemd's user manager reads it at your next login: its "
     "DefaultEnvironment reaches every unit (LD_PRELOAD, PATH)"},
    {"systemd/user.conf.d", NULL, false,
     "systemd's user manager reads it at your next login: its "
     "DefaultEnvironment reaches every unit (LD_PRELOAD, PATH)"},
    /* editors' plugins, schemes and init files */
    {"nvim/pack", NULL, true, "Neovim loads the plugins it holds"},
    {"nvim/colors", NULL, true, "Neovim runs it when the scheme is picked"},
    {"nvim/autoload", NULL, true,
     "Neovim runs it when a function it defines is called"},
    {"vim", "vimrc", false, "Vim runs it at every start"},
    {"vim", "gvimrc", false, "gVim runs it at every start"},
    {"vim/plugin", NULL, true, "Vim runs it at every start"},
    {"vim/pack", NULL, true, "Vim loads the plugins it holds"},
    {"vim/autoload", NULL, true,
     "Vim runs it when a function it defines is called"},
    {"vim/ftplugin", NULL, true, "Vim runs it when a file of its type opens"},
    {"emacs", "init.el", false, "Emacs runs it at every start"},
    {"emacs", "early-init.el", false, "Emacs runs it at every start"},
    {"emacs/lisp", NULL, true, "Emacs loads it when init.el asks"},
    {"helix", "languages.toml", false,
     "Helix runs the language servers and formatters it names when a "
     "file of that language opens"},
    /* context.exec runs programs as the session's sound server starts */
    {"pipewire", "*.conf", false,
     "PipeWire runs the programs its context.exec names at your next "
     "login"},
    {"pipewire/pipewire.conf.d", NULL, false,
     "PipeWire runs the programs its context.exec names at your next "
     "login"},
    {"direnv", "config.toml", false,
     "direnv loads every .envrc under the folders its whitelist names, "
     "unasked"},
};

/* The same for the user's data folder ($XDG_DATA_HOME, ~/.local/share),
 * by its identity: whether granted itself, as ~/.local or under the
 * home. systemd/user there is session_enter's, by name. */
static const struct config_row data_rows[] = {
    /* a desktop file's Exec runs when a file of a type it claims opens
     * (gio, xdg-open, a file manager) or from the menu; subfolders'
     * count too (their ids have a '-') */
    {"applications", "*.desktop", true,
     "a desktop entry: its Exec runs when a file of a type it claims "
     "opens (xdg-open, your file manager) or when you pick it in the "
     "menu"},
    {"applications", "mimeapps.list", false,
     "names the program that opens each type of file (xdg-open, your file "
     "manager, a browser's download)"},
    /* on Neovim's runtime path: its packages' start/ plugins and its own
     * plugin/ run at every start, the rest when a file's type or the
     * configuration loads it */
    {"nvim/site", NULL, true,
     "Neovim runs it at every start (plugins, packages) or when a file's "
     "type or your configuration loads it"},
    /* fish's own config.fish reads the user's data folder as a vendor
     * folder: conf.d at every start, functions and completions when
     * typed, generated completions (fish_update_completions) at tab */
    {"fish/vendor_conf.d", NULL, false,
     "fish runs it at every start of your shell"},
    {"fish/vendor_functions.d", NULL, false,
     "fish runs it when you type the command it defines"},
    {"fish/vendor_completions.d", NULL, false,
     "fish runs it when you press tab after the command it names"},
    {"fish/generated_completions", NULL, false,
     "fish runs it when you press tab after the command it names"},
    /* bash-completion sources the user's own completions first */
    {"bash-completion/completions", NULL, false,
     "bash runs it when you press tab after the command it names"},
    /* the session bus starts a service file's Exec on the first call
     * to its name; a file manager runs a thumbnailer's on a file */
    {"dbus-1/services", "*.service", false,
     "your session's D-Bus runs its Exec at the first call to the name "
     "it claims"},
    {"thumbnailers", "*.thumbnailer", false,
     "your file manager runs its Exec to draw a file's thumbnail"},
    /* a file manager's own menu of programs: each runs when picked on a
     * file; a shell extension runs in the session at every login */
    {"nautilus/scripts", NULL, true,
     "Nautilus (GNOME Files) runs it when you pick it in a file's "
     "Scripts menu"},
    {"kio/servicemenus", "*.desktop", true,
     "Dolphin (KDE) runs its Exec when you pick it in a file's menu"},
    {"kservices5/ServiceMenus", "*.desktop", true,
     "Dolphin (KDE) runs its Exec when you pick it in a file's menu"},
    {"gnome-shell/extensions", NULL, true,
     "GNOME Shell runs it at your next login when the extension is "
     "enabled"},
    {"jupyter/kernels", NULL, true,
     "Jupyter runs the command its kernel.json names when you pick the "
     "kernel"},
    {"nautilus-python/extensions", NULL, true,
     "Nautilus runs it (Python) at every start"},
    {"konsole", "*.profile", false,
     "Konsole runs the command a profile names when a tab opens with it"},
    /* each file allows an .envrc: direnv then loads it unasked */
    {"direnv/allow", NULL, false,
     "direnv loads the .envrc it allows, unasked, when you cd there"},
};

static bool ends_with(const char *s, const char *suffix);

static const struct config_row *xdg_rows(bool data, size_t *n)
{
	*n = data ? ARRAY_SIZE(data_rows) : ARRAY_SIZE(config_rows);
	return data ? data_rows : config_rows;
}

static const struct config_row *config_row(const struct flag_where *w,
					   const char *name)
{
	size_t n;
	const struct config_row *rows = xdg_rows(w->xdg_data, &n);
	for (size_t i = 0; i < n; i++) {
		const struct config_row *r = &rows[i];
		if (strcmp(r->dir, w->xdg) != 0)
			continue;
		if (!r->name || strcmp(r->name, name) == 0 ||
		    (r->name[0] == '*' && strlen(name) > strlen(r->name) - 1 &&
		     ends_with(name, r->name + 1)))
			return r;
	}
	return NULL;
}

/* The folder name below a folder of the configuration (or data)
 * folder: still one the rows name (or lie under), or not. */
static void config_enter(const struct flag_where *parent, const char *name,
			 struct flag_where *child)
{
	child->xdg_in = false;
	if (!parent->xdg_in)
		return;
	size_t nrows;
	const struct config_row *rows = xdg_rows(parent->xdg_data, &nrows);
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].below && strcmp(rows[i].dir, parent->xdg) == 0) {
			child->xdg_in = true;
			return; /* xdg stays the row's folder */
		}
	char path[sizeof(child->xdg)];
	int n = snprintf(path, sizeof(path), "%s%s%s", parent->xdg,
			 parent->xdg[0] ? "/" : "", name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	for (size_t i = 0; i < nrows; i++) {
		const char *d = rows[i].dir;
		if (strncmp(d, path, (size_t)n) == 0 &&
		    (d[n] == '\0' || d[n] == '/')) {
			child->xdg_in = true;
			memcpy(child->xdg, path, (size_t)n + 1);
			return;
		}
	}
}

static void xdg_folder(bool data, const char *rel, struct flag_where *w)
{
	w->xdg_in = true;
	w->xdg_data = data;
	w->xdg[0] = '\0';
	while (rel && *rel && w->xdg_in) {
		while (*rel == '/')
			rel++;
		size_t n = strcspn(rel, "/");
		if (!n)
			break;
		char comp[NAME_MAX + 1];
		if (n > NAME_MAX) {
			w->xdg_in = false;
			break;
		}
		memcpy(comp, rel, n);
		comp[n] = '\0';
		struct flag_where next = *w;
		config_enter(w, comp, &next);
		*w = next;
		rel += n;
	}
}

void flags_config_folder(const char *rel, struct flag_where *w)
{
	xdg_folder(false, rel, w);
}

void flags_data_folder(const char *rel, struct flag_where *w)
{
	xdg_folder(true, rel, w);
}

/* Folders of the home a program runs every file of at its start, by
 * name: granted for a tool to install a plugin, any file the program
 * leaves there runs in the user's next vim, emacs, ipython or zsh. */
static const struct row home_code_dirs[] = {
    {".vim", "Vim runs what this folder holds (vimrc, plugins, packs, "
	     "autoload) at every start"},
    {".emacs.d", "Emacs runs what this folder holds (init.el and what it "
		 "loads) at every start"},
    {".ipython", "IPython runs its profiles' configuration and startup "
		 "files at every start"},
    {".oh-my-zsh", "zsh sources oh-my-zsh's files (plugins, custom) at "
		   "every start"},
};

/* The folders a login runs what they hold from, by name: name entered
 * below a folder at parent. */
static void session_enter(const struct flag_where *parent, const char *name,
			  struct flag_where *child)
{
	child->home_code = parent->home_code;
	for (size_t i = 0; !child->home_code && i < ARRAY_SIZE(home_code_dirs);
	     i++)
		if (strcmp(name, home_code_dirs[i].name) == 0)
			child->home_code = home_code_dirs[i].reason;
	child->autostart = strcmp(name, "autostart") == 0;
	child->systemd_user = parent->systemd_user ||
			      (parent->systemd && strcmp(name, "user") == 0);
	child->systemd = strcmp(name, "systemd") == 0;
	child->env_d = strcmp(name, "environment.d") == 0;
	child->ssh_dir = strcmp(name, ".ssh") == 0;
}

void flags_top(const char *top, struct flag_where *w)
{
	struct flag_where up = {0};
	const char *p = top;

	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n || n > NAME_MAX)
			break;
		char comp[NAME_MAX + 1];
		memcpy(comp, p, n);
		comp[n] = '\0';
		struct flag_where next = up;
		session_enter(&up, comp, &next);
		up = next;
		p += n;
	}
	w->autostart = up.autostart;
	w->systemd = up.systemd;
	w->systemd_user = up.systemd_user;
	w->env_d = up.env_d;
	w->ssh_dir = up.ssh_dir;
	w->home_code = up.home_code;
}

void flags_enter(const struct flag_where *parent, const char *name,
		 bool parent_venv, struct flag_where *child)
{
	*child = *parent;
	child->depth = parent->depth + 1;
	child->site = false;
	child->venv_bin = false;
	child->on_path = false;
	child->code_var = NULL;
	child->bare_here = false;
	child->git_root = false;
	child->git_new = false;
	session_enter(parent, name, child);
	config_enter(parent, name, child);
	if (!parent->in_git && strcmp(name, ".git") == 0) {
		child->in_git = true;
		child->git_root = true;
		child->git_hooks = false;
		/* the top's own .git (--write-dot-files) is the user's
		 * grant; a repository below it is the program's */
		child->below_top = parent->depth > 0;
	} else if (parent->in_git && parent->depth + 1 >= 1 &&
		   strcmp(name, "hooks") == 0) {
		child->git_hooks = true;
	}
	if (in_list(name, vendored, sizeof(vendored) / sizeof(*vendored)))
		child->vendored = true;
	const struct dot_file *d;
	if (!child->dot && !child->in_git && (d = dot_row(name)))
		child->dot = d;
	if (strcmp(name, "site-packages") == 0 ||
	    strcmp(name, "dist-packages") == 0)
		child->site = true;
	if (parent_venv &&
	    (strcmp(name, "bin") == 0 || strcmp(name, "Scripts") == 0))
		child->venv_bin = true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A lockfile read whole: a project's runs to megabytes. */
#define SOURCES_READ_MAX (32u << 20)

/* A file of the program's, read without following a link, bounded. */
static int read_bounded(int dirfd, const char *name, size_t max, char **out,
			size_t *len)
{
	int fd =
	    openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else
		r = read_fd_all(fd, max, out, len);
	close(fd);
	return r;
}

static int read_small(int dirfd, const char *name, char **out, size_t *len)
{
	return read_bounded(dirfd, name, FLAG_READ_MAX, out, len);
}

/* A lockfile or requirements file: where it fetches packages from
 * (sources.c). */
static char *sources_of(int dirfd, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	int r = read_bounded(dirfd, name, SOURCES_READ_MAX, &text, &len);
	if (r == -EFBIG)
		return xstrdup("too large for lnk to read: review where it "
			       "fetches its packages from; the next install "
			       "runs their install scripts");
	if (r < 0)
		return NULL;
	char *why = sources_reason(name, text, len);
	free(text);
	return why;
}

static char *git_config_reason(int dirfd, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	if (read_small(dirfd, name, &text, &len) < 0)
		return xstrdup("a git config lnk could not read: review it "
			       "before git reads this repository");
	char **keys = NULL;
	size_t n = 0;
	gitcfg_programs(text, len, &keys, &n, 16);
	free(text);
	if (n == 0)
		return NULL;
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, "; ");
		buf_puts(&b, keys[i]);
		free(keys[i]);
	}
	free(keys);
	return buf_steal(&b);
}

/* package.json's "scripts": npm runs them at install (the lifecycle
 * ones) and at `npm run`, and editors list them to run. Its old content
 * is not known, so a changed manifest with scripts is flagged, naming
 * them. A crude scan, bounded: a key named in the object after
 * "scripts"; a file it cannot read so is flagged whole. */
/* package.json's keys whose value names commands the project's commit
 * hook runs: the hook is kept read only (.husky), what it runs is named
 * here (lint-staged's config; husky 4's, simple-git-hooks', yorkie's and
 * pre-commit's hooks). Threat: a command added there runs at the user's
 * next git commit. */
static const char *const commit_keys[] = {
    "\"lint-staged\"", "\"husky\"",	 "\"simple-git-hooks\"",
    "\"gitHooks\"",    "\"pre-commit\"",
};

/* why, with what the commit keys found in text name appended (why may be
 * NULL: then that alone, or NULL). */
static char *with_commit_keys(char *why, const char *text, size_t len)
{
	struct buf k = {0};
	for (size_t i = 0; i < ARRAY_SIZE(commit_keys); i++)
		if (memmem(text, len, commit_keys[i], strlen(commit_keys[i]))) {
			buf_puts(&k, k.len ? ", " : "");
			buf_append(&k, commit_keys[i] + 1,
				   strlen(commit_keys[i]) - 2);
		}
	if (!k.len)
		return why;
	char *all = xasprintf("%s%sits %s settings name commands your next "
			      "git commit runs",
			      why ? why : "", why ? "; " : "", k.p);
	buf_free(&k);
	free(why);
	return all;
}

static char *package_json_scripts(const char *text, size_t len);

static char *package_json_reason(int dirfd, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	int r = read_small(dirfd, name, &text, &len);
	if (r == -EFBIG)
		return xstrdup("a package.json too large for lnk to read: "
			       "review its scripts, which run at the next npm "
			       "install or npm run");
	if (r < 0)
		return NULL;
	char *why =
	    with_commit_keys(package_json_scripts(text, len), text, len);
	free(text);
	return why;
}

/* What text's scripts and packageManager run (text not freed here). */
static char *package_json_scripts(const char *text, size_t len)
{
	/* corepack downloads and runs the package manager this names (a
	 * version, or an archive's URL) at the next yarn or pnpm here */
	bool pm = memmem(text, len, "\"packageManager\"", 16) != NULL;
	const char *p = memmem(text, len, "\"scripts\"", 9);
	/* Spellings this scan cannot read, which npm reads all the same: a
	 * key written with a \u escape ("scr\u0069pts"), "scripts" more
	 * than once (npm keeps the last key, the scan reads the first, or a
	 * value). Threat: a postinstall the report does not name. Such a
	 * file is flagged whole, to be reviewed. */
	bool unsure = memmem(text, len, "\\u", 2) != NULL ||
		      (p && memmem(p + 9, (size_t)(text + len - p - 9),
				   "\"scripts\"", 9) != NULL);
	if (unsure) {
		return xstrdup("its scripts or packageManager may be spelled "
			       "so lnk cannot read them (a \\u escape, a "
			       "key twice): review it, npm runs its scripts "
			       "at the next npm install or npm run");
	}
	if (!p) {
		return pm ? xstrdup("its packageManager names the program "
				    "corepack fetches and runs at the next "
				    "yarn or pnpm here")
			  : NULL;
	}
	const char *end = text + len;
	p += 9;
	while (p < end && *p != '{' && *p != '}')
		p++;
	struct buf names = {0};
	size_t count = 0;
	if (p < end && *p == '{') {
		p++;
		/* each "key": at depth one of the scripts object */
		int depth = 1;
		bool want_key = true;
		while (p < end && depth > 0 && count < 8) {
			if (*p == '"') {
				const char *q = ++p;
				while (p < end && *p != '"') {
					if (*p == '\\' && p + 1 < end)
						p++;
					p++;
				}
				if (depth == 1 && want_key && p < end) {
					if (count++)
						buf_puts(&names, ", ");
					size_t n = (size_t)(p - q);
					buf_append(&names, q, n > 40 ? 40 : n);
					want_key = false;
				}
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if (*p == '}' || *p == ']') {
				depth--;
			} else if (*p == ',' && depth == 1) {
				want_key = true;
			}
			p++;
		}
	}
	if (count == 0) {
		buf_free(&names);
		return pm ? xstrdup("its packageManager names the program "
				    "corepack fetches and runs at the next "
				    "yarn or pnpm here")
			  : NULL;
	}
	char *why = xasprintf("its scripts (%s) run at the next npm install "
			      "or npm run%s",
			      names.p,
			      pm ? "; its packageManager names the program "
				   "corepack fetches and runs"
				 : "");
	buf_free(&names);
	return why;
}

static bool config_program(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name)
		return false;
	if (!in_list(dot + 1, config_exts,
		     sizeof(config_exts) / sizeof(*config_exts)))
		return false;
	size_t stem = (size_t)(dot - name);
	for (size_t i = 0; i < sizeof(config_stems) / sizeof(*config_stems);
	     i++)
		if (strlen(config_stems[i]) == stem &&
		    strncmp(name, config_stems[i], stem) == 0)
			return true;
	return false;
}

static const char *py_module(const char *name, bool dir, char *tmp, size_t cap);

/* A module left in a folder a code search path of yours names, that the
 * language loads in place of its own: your next python (perl, ruby),
 * wherever it starts, loads it. The folder's other files are the
 * project's own code, which the run was given to change. */
static char *code_path_shadow(const char *name, bool file, bool dir,
			      const struct flag_where *w)
{
	/* what perl's programs load at their first line, and ruby at every
	 * start (rubygems, did_you_mean, error_highlight, syntax_suggest) */
	static const char *const perl[] = {
	    "strict.pm",   "warnings.pm", "vars.pm",   "Carp.pm",
	    "Exporter.pm", "constant.pm", "lib.pm",    "utf8.pm",
	    "overload.pm", "base.pm",	  "parent.pm", "feature.pm",
	    "Config.pm",   "POSIX.pm",	  "File",      "Data",
	    "List",	   "Scalar",	  "Getopt",    "Carp"};
	static const char *const ruby[] = {"rubygems.rb",
					   "rubygems",
					   "did_you_mean.rb",
					   "did_you_mean",
					   "error_highlight.rb",
					   "syntax_suggest.rb",
					   "bundler.rb",
					   "bundler",
					   "json.rb",
					   "set.rb"};
	char tmp[64];
	const char *mod;

	if (!w->code_var || (!file && !dir))
		return NULL;
	if (strcmp(w->code_var, "PYTHONPATH") == 0) {
		if ((mod = py_module(name, dir, tmp, sizeof(tmp))) ||
		    strcmp(name, "sitecustomize.py") == 0 ||
		    strcmp(name, "usercustomize.py") == 0)
			return xasprintf(
			    "PYTHONPATH names this folder: every python you "
			    "start imports %s from it, in place of its own",
			    mod ? mod : name);
		return NULL;
	}
	bool is_perl = strcmp(w->code_var, "RUBYLIB") != 0;
	if (in_list(name, is_perl ? perl : ruby,
		    is_perl ? ARRAY_SIZE(perl) : ARRAY_SIZE(ruby)))
		return xasprintf("%s names this folder: every %s you start "
				 "loads %s from it, in place of its own",
				 w->code_var, is_perl ? "perl" : "ruby", name);
	return NULL;
}

static const char *py_module(const char *name, bool dir, char *tmp, size_t cap)
{
	size_t n = strlen(name);
	if (!dir) {
		if (n < 4 || !ends_with(name, ".py") || n - 3 >= cap)
			return NULL;
		memcpy(tmp, name, n - 3);
		tmp[n - 3] = '\0';
		name = tmp;
	}
	return in_list(name, py_shadow, sizeof(py_shadow) / sizeof(*py_shadow))
		   ? name
		   : NULL;
}

/* The table by name and place (flags_check adds what the mode says). */
static char *flags_judge(int dirfd, const char *name, mode_t mode,
			 const struct flag_where *w, const char *link_target)
{
	bool reg = S_ISREG(mode), dir = S_ISDIR(mode), lnk = S_ISLNK(mode);
	bool exe = reg && (mode & 0111);
	/* make, pytest, npm, python and git follow a link: a link by a row's
	 * name (Makefile -> evil.mk, a git config -> notes.txt) runs what it
	 * names, so the rows that go by a file's name take links too. What
	 * is read of a file's content is never read through one. */
	bool file = reg || lnk;

	/* a name on PATH is said as one first: whatever else it is (a link
	 * out, into .cache, in .local), it runs when you type a command.
	 * Threat: ~/.local/bin/ls -> ../share/tool/run reported only as a
	 * link into a folder of packages. What else it is follows. */
	if (w->on_path && (exe || lnk)) {
		struct flag_where rest = *w;
		rest.on_path = false;
		char *also = flags_judge(dirfd, name, mode, &rest, link_target);
		bool plain = !also || strncmp(also, FLAG_EXECUTABLE,
					      strlen(FLAG_EXECUTABLE)) == 0;
		char *why = xasprintf("a new program or link in a folder on "
				      "your PATH: runs when you type its "
				      "name%s%s",
				      plain ? "" : "; ", plain ? "" : also);
		free(also);
		return why;
	}
	if (link_target)
		return xasprintf("a link out of the write folder, to %s: a "
				 "tool that follows it reads or writes there",
				 link_target);
	if (reg && (mode & (S_ISUID | S_ISGID)))
		return xstrdup("a set-ID bit: it runs with its owner's rights "
			       "when anyone starts it");
	if (strcmp(name, ".git") == 0 && w->depth > 0 && !w->in_git)
		return xstrdup("a repository made or changed below the top: "
			       "git runs its config and hooks when your "
			       "prompt or editor runs git in this folder");
	if (w->in_git) {
		if (w->bare_here && strcmp(name, "HEAD") == 0)
			return xstrdup("a bare repository made or changed "
				       "below the top: git runs its config and "
				       "hooks when a tool reads it");
		if (file &&
		    (strcmp(name, "config") == 0 ||
		     strcmp(name, "config.worktree") == 0) &&
		    !w->git_hooks)
			return git_config_reason(dirfd, name);
		/* a worktree's commondir names the folder git takes its
		 * config, hooks and objects from: one the program points
		 * elsewhere (a folder with a fsmonitor in its config and no
		 * HEAD, which is no repository of its own) runs there */
		if (file && (strcmp(name, "commondir") == 0 ||
			     strcmp(name, "gitdir") == 0))
			return xstrdup("a worktree's commondir or gitdir: git "
				       "takes this repository's config and "
				       "hooks from the folder it names");
		if (w->git_hooks && (reg || lnk) && !ends_with(name, ".sample"))
			return xstrdup("a git hook: git runs it at the next "
				       "commit, checkout, merge or push in "
				       "this repository");
		return NULL;
	}
	/* a program's own file in the configuration or data folder, by
	 * what runs it, before the dot-file folder's general reason (the
	 * home granted with its dot files) */
	const struct config_row *cr;
	if (file && w->xdg_in && (cr = config_row(w, name))) {
		if (reg && !w->xdg_data && strcmp(cr->dir, "git") == 0 &&
		    strcmp(name, "config") == 0) {
			char *keys = git_config_reason(dirfd, name);
			if (keys) {
				char *all =
				    xasprintf("%s; %s", cr->reason, keys);
				free(keys);
				return all;
			}
		}
		return xstrdup(cr->reason);
	}
	/* the names that run outside: the dot-file rules keep them at the
	 * write folder's top; below it (a tool started in that folder reads
	 * them), inside one of their folders, or with --write-dot-files they
	 * are the program's */
	const struct dot_file *d;
	if (!w->vendored && (d = dot_row(name)))
		return xasprintf("%s: %s, when started in this folder", d->name,
				 d->why);
	if (!w->vendored && w->dot && (reg || lnk))
		return xasprintf("in %s: %s", w->dot->name, w->dot->why);
	if (file && w->site && ends_with(name, ".pth"))
		return xstrdup("a .pth file: its import lines run at every "
			       "start of this environment's python");
	if (file && (strcmp(name, "sitecustomize.py") == 0 ||
		     strcmp(name, "usercustomize.py") == 0))
		return xstrdup("python runs it at every start whose path holds "
			       "this folder");
	/* home in pyvenv.cfg names where the environment's python finds its
	 * standard library (site.py, encodings), run at every start */
	if (file && strcmp(name, "pyvenv.cfg") == 0)
		return xstrdup("a virtualenv's settings: its home names the "
			       "python and standard library this environment "
			       "runs at every start");
	if (w->venv_bin && (exe || lnk))
		return xstrdup("a new program in a virtualenv's bin: runs when "
			       "the environment is active and you (or a "
			       "tool) type its name");
	/* activate (and its .fish, .csh, .nu, .ps1 forms) is sourced into
	 * the user's own shell: no exec bit needed */
	if (w->venv_bin && reg)
		return xstrdup("a script in a virtualenv's bin: your shell "
			       "runs it when you activate the environment "
			       "(source activate)");
	/* what the next login runs or trusts */
	if (file && w->autostart && ends_with(name, ".desktop"))
		return xstrdup("an autostart entry: your desktop session runs "
			       "it at your next login");
	if ((file || dir) && w->systemd_user)
		return xstrdup("a systemd user unit: systemd runs it at your "
			       "next login (or when a timer, socket or path "
			       "unit starts it)");
	if (file && w->env_d && ends_with(name, ".conf"))
		return xstrdup("a login environment file: systemd sets its "
			       "variables (PATH, LD_PRELOAD) in every program "
			       "of your next login");
	if (file && w->ssh_dir &&
	    (strcmp(name, "authorized_keys") == 0 ||
	     strcmp(name, "authorized_keys2") == 0))
		return xstrdup("ssh keys: sshd lets in whoever holds one as "
			       "you, and runs the command a line names");
	if (file && w->ssh_dir &&
	    (strcmp(name, "rc") == 0 || strcmp(name, "config") == 0 ||
	     strcmp(name, "environment") == 0))
		return xstrdup("an ssh file: ssh and sshd run what it names "
			       "(ProxyCommand, LocalCommand, ~/.ssh/rc) at the "
			       "next connection");
	if (file && w->ssh_dir &&
	    (strcmp(name, "known_hosts") == 0 ||
	     strcmp(name, "known_hosts2") == 0))
		return xstrdup(
		    "ssh trusts the hosts and the certificate "
		    "authorities (@cert-authority) it lists: a server "
		    "it names is believed at your next connection");
	if (file && w->home_code)
		return xstrdup(w->home_code);
	char *shadow = code_path_shadow(name, file, dir, w);
	if (shadow)
		return shadow;
	if (w->vendored)
		return NULL;
	char tmp[64];
	const char *mod;
	if (w->depth == 0 && (file || dir) &&
	    (mod = py_module(name, dir, tmp, sizeof(tmp))))
		return xasprintf("shadows Python's %s: python started in this "
				 "folder imports it first%s",
				 mod,
				 strcmp(mod, "readline") == 0
				     ? " (readline: at every interactive start)"
				     : "");
	if (lnk && strcmp(name, "package.json") == 0)
		return xstrdup(
		    "a link named package.json: npm runs the scripts "
		    "of the file it names at the next npm install "
		    "or npm run");
	if (reg && strcmp(name, "package.json") == 0)
		return package_json_reason(dirfd, name);
	if (reg && sources_file(name))
		return sources_of(dirfd, name);
	/* .env.local, .envrc.private: what a kept .envrc (dotenv_if_exists,
	 * source_env_if_exists) or mise.toml loads into the user's shell at
	 * cd, where a variable is code (PROMPT_COMMAND, PATH); a template
	 * (.env.example) is loaded by nothing */
	if (file &&
	    (strncmp(name, ".env.", 5) == 0 ||
	     strncmp(name, ".envrc.", 7) == 0) &&
	    strcmp(name, ".env.example") != 0 &&
	    strcmp(name, ".env.sample") != 0 &&
	    strcmp(name, ".env.template") != 0)
		return xstrdup("an environment file: direnv, mise and dotenv "
			       "load it into your shell when the folder's "
			       ".envrc or config names it (PROMPT_COMMAND and "
			       "PATH run what it says)");
	/* just takes justfile and .justfile in any letter case */
	if (file && (strcasecmp(name, "justfile") == 0 ||
		     strcasecmp(name, ".justfile") == 0))
		return xstrdup("a build file: runs at the next just");
	for (size_t i = 0; i < sizeof(build_files) / sizeof(*build_files); i++)
		if (file && strcmp(name, build_files[i].name) == 0)
			return xasprintf("a build file: %s",
					 build_files[i].reason);
	/* a workspace's settings and folder-open tasks, when you open it */
	if (file && ends_with(name, ".code-workspace"))
		return xstrdup(
		    "a VS Code workspace: its tasks and settings run "
		    "when you open it");
	if (file && config_program(name))
		return xstrdup("a configuration file that is a program: the "
			       "tool runs it at its next start, an editor's "
			       "extension as soon as the folder opens");
	if (exe)
		return xstrdup(FLAG_EXECUTABLE
			       " runs when you or a script start "
			       "it");
	return NULL;
}

char *flags_check(int dirfd, const char *name, mode_t mode,
		  const struct flag_where *w, const char *link_target)
{
	char *why = flags_judge(dirfd, name, mode, w, link_target);
	/* A FIFO waits for a writer: one named Makefile or package.json
	 * hangs the make or npm that opens it, and what it reads then is
	 * whatever its writer sends. A socket answers a tool that connects
	 * to it with whatever listens there; a device node opens the device
	 * it names to whoever its mode lets. None is project content. */
	const char *special = S_ISFIFO(mode)   ? "a FIFO (named pipe)"
			      : S_ISSOCK(mode) ? "a socket"
			      : S_ISCHR(mode) || S_ISBLK(mode) ? "a device node"
							       : NULL;
	if (special) {
		char *s = xasprintf("%s made in the run: a tool that opens it "
				    "(make, an editor, a build) waits on or "
				    "talks to whatever is at its other end%s%s",
				    special, why ? "; " : "", why ? why : "");
		free(why);
		why = s;
	}
	/* Threat: a folder below the top or a file every account may write
	 * (chmod 0777 scripts, 0666 scripts/build.sh) lets another account
	 * of this machine change what you build or run later; rule M guards
	 * only the top. A sticky folder (as /tmp) keeps each account to its
	 * own names; group write alone is not flagged (user-private groups:
	 * umask 002 makes every file group-writable). A link's mode is
	 * meaningless. */
	if ((mode & S_IWOTH) && !S_ISLNK(mode) &&
	    !(S_ISDIR(mode) && (mode & S_ISVTX))) {
		char *s =
		    xasprintf("writable by every account on this "
			      "machine: any of them can %s%s%s",
			      S_ISDIR(mode) ? "replace or add to what it holds"
					    : "change it",
			      why ? "; " : "", why ? why : "");
		free(why);
		why = s;
	}
	return why;
}

bool flags_plain(const char *reason)
{
	if (strncmp(reason, FLAG_MOVED, strlen(FLAG_MOVED)) == 0)
		reason += strlen(FLAG_MOVED);
	return strncmp(reason, FLAG_EXECUTABLE, strlen(FLAG_EXECUTABLE)) == 0;
}

bool flags_place_decides(const struct flag_where *w)
{
	/* site-packages and the dot-file folders decide too, yet a pip
	 * install or an editor adds to them at every run: there only a
	 * pure move (walk.c) makes their old entries judged. So does the
	 * top's own git directory, which every commit writes (with
	 * --write-dot-files): there only its hooks folder decides (its
	 * entries are git's to run). A git directory below the top, one the
	 * program made or moved there, decides whole. */
	return w->on_path || w->venv_bin || w->git_hooks ||
	       (w->in_git && w->below_top) || w->xdg_in || w->autostart ||
	       w->systemd_user || w->env_d || w->ssh_dir || w->home_code;
}
