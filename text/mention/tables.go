package mention

// This file holds the vocabulary of the package, as data. The code applies
// it and spells out no word of its own. Words are matched case-insensitively
// (ASCII); a table entry is written in lower case. All tables are compiled
// once, at package initialisation, into one lexicon (see lexicon.go).

// fileExts are the extensions that make a name a file name ("parser.ts",
// "go.mod"). An extension is matched only in lower case: "ASP.NET" is no
// file. Extensions that are also top-level domains of sites people name in
// prose are kept only when they are overwhelmingly file extensions.
var fileExts = []string{
	"go", "mod", "sum", "work", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "py", "pyi",
	"pyx", "rb", "rs", "java", "kt", "kts", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs",
	"fs", "fsx", "swift", "m", "mm", "ex", "exs", "erl", "hrl", "php", "scala", "sc", "sh",
	"bash", "zsh", "fish", "ps1", "bat", "cmd", "md", "mdx", "markdown", "rst", "txt", "adoc",
	"tex", "json", "jsonc", "json5", "jsonl", "ndjson", "yaml", "yml", "toml", "ini",
	"cfg", "conf", "config", "xml", "xsd", "html", "htm", "xhtml", "css", "scss", "sass",
	"less", "styl", "sql", "proto", "graphql", "gql", "lock", "vue", "svelte", "astro", "dart",
	"lua", "r", "rmd", "jl", "pl", "pm", "t", "tf", "tfvars", "hcl", "nix", "gradle",
	"properties", "env", "csv", "tsv", "parquet", "ipynb", "heex", "eex", "leex", "zig",
	"nim", "ml", "mli", "hs", "lhs", "clj", "cljs", "cljc", "edn", "elm", "ex", "v", "sv",
	"vhd", "asm", "s", "wasm", "wat", "gitignore", "dockerignore", "editorconfig", "lockb",
	"log", "out", "diff", "patch", "pem", "crt", "key", "pub", "svg", "png", "jpg", "jpeg",
	"gif", "webp", "ico", "pdf", "zip", "gz", "tgz", "tar", "bz2", "xz", "jar", "war",
	"whl", "so", "dylib", "dll", "exe", "bin", "o", "a", "db", "sqlite", "sqlite3",
	"tmpl", "tpl", "gotmpl", "j2", "jinja", "hbs", "mustache", "ejs", "pug", "erb", "haml",
	"plist", "xcconfig", "pbxproj", "storyboard", "xib", "csproj", "sln", "vcxproj",
	"cmake", "mk", "make", "bzl", "bazel", "star", "dockerfile", "containerfile", "service",
	"socket", "timer", "desktop", "snap", "prisma", "feature", "spec", "snapshot", "snap",
	"avsc", "thrift", "capnp", "fbs", "sol", "move", "cairo", "vy", "ino", "pde", "qml",
	"ui", "glsl", "hlsl", "wgsl", "frag", "vert", "metal", "cu", "cuh", "f90", "f", "for",
	"cob", "ada", "adb", "ads", "pas", "d", "cr", "rkt", "scm", "ss", "lisp", "el", "vim",
	"awk", "sed", "ps", "rego", "cue", "jsonnet", "libsonnet", "dhall", "ron", "kdl",
}

// extGuard are extensions that need more than a bare "word.ext" to make a
// file: a single letter ("a.m", "U.S"), or a word that prose also puts after
// a dot. A name with one of them is a file only with a directory or in code.
var extGuard = []string{
	"t", "v", "s", "o", "a", "d", "f", "ss", "sc", "el", "ps", "for",
	"org", "ui", "out", "log", "key", "pub", "move", "star", "spec", "feature", "service",
	"socket", "timer", "desktop", "snap", "snapshot", "make", "work", "config", "cmd", "bin",
	"so", "sed", "awk", "vim", "ada", "lisp", "cr", "fish", "less", "lock", "env", "db",
}

// bareFileNames are file names without an extension, as they are written.
var bareFileNames = []string{
	"Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Gemfile",
	"Rakefile", "Procfile", "Justfile", "justfile", "Vagrantfile", "Jenkinsfile",
	"Brewfile", "Podfile", "Fastfile", "Appfile", "Caddyfile", "Tiltfile", "Earthfile",
	"Snakefile", "CODEOWNERS", "OWNERS",
}

// dotFiles are names that start with a dot and name a file or directory.
// Others are files when their own extension is a file extension
// (".golangci.yml") or they end in "rc" or "ignore".
var dotFiles = []string{
	".env", ".github", ".gitlab", ".vscode", ".idea", ".husky", ".circleci", ".devcontainer",
	".gitattributes", ".gitmodules", ".gitkeep", ".keep", ".mailmap", ".tool-versions",
	".python-version", ".ruby-version", ".node-version", ".nvmrc", ".editorconfig",
	".htaccess", ".profile", ".bash_profile", ".zprofile", ".ssh", ".config", ".cargo",
	".formatter.exs", ".credo.exs", ".envrc", ".flake8", ".pylintrc", ".coveragerc",
	".browserslistrc", ".clang-format", ".clang-tidy", ".terraform", ".venv", ".next",
}

// libraryNames look like file names but name libraries, frameworks or
// sites: "Node.js", "ASP.NET", "docs.rs".
var libraryNames = []string{
	"node.js", "next.js", "nuxt.js", "vue.js", "react.js", "express.js", "d3.js",
	"three.js", "chart.js", "highlight.js", "moment.js", "socket.io", "alpine.js",
	"ember.js", "backbone.js", "angular.js", "nest.js", "deno.land", "asp.net", "ado.net",
	"vb.net", "day.js", "ext.js", "knockout.js", "babylon.js", "pixi.js", "anime.js",
	"paper.js", "solid.js", "preact.js", "meteor.js", "mithril.js", "handlebars.js",
	"underscore.js", "immutable.js", "video.js", "leaflet.js", "p5.js", "tone.js",
	"brain.js", "ml5.js", "tensorflow.js", "tf.js", "math.js", "marked.js", "prism.js",
	"require.js", "pdf.js", "quill.js", "swiper.js", "popper.js", "sortable.js",
	"docs.rs", "crates.io", "lib.rs", "go.dev", "pkg.go.dev", "npmjs.com", "pypi.org",
}

// tlds are top-level domains: a dotted name ending in one (and not in a file
// extension) is a domain, and a path whose first segment is a domain is a
// package path ("github.com/x/y", "golang.org/x/sync").
var tlds = []string{
	"com", "org", "net", "io", "dev", "in", "land", "co", "gov", "edu", "app", "cloud",
	"ai", "me", "so", "xyz", "page", "tech", "info", "biz", "us", "uk", "de", "fr", "jp",
	"cn", "ru", "eu", "ca", "au", "nl", "ch", "se", "no", "it", "es", "be", "at", "dk",
	"fi", "pl", "cz", "br", "kr", "tw", "hk", "sg", "nz", "ie", "il", "to", "gg", "ly",
	"fm", "tv", "site", "online", "store", "run", "sh", "build", "tools", "codes", "works",
	"science", "systems", "network", "services", "solutions", "software", "email", "link",
}

// goHosts are hosts of Go import paths that are not ordinary domains.
var goHosts = []string{"gopkg.in", "go.uber.org", "k8s.io", "sigs.k8s.io", "honnef.co", "modernc.org", "cel.dev", "go.yaml.in"}

// knownDirs are first path segments that make a path without an extension a
// path ("src/components", "cmd/vouch"). Other two-segment words joined by a
// slash ("and/or", "input/output", "TCP/IP") are no paths.
var knownDirs = []string{
	"src", "lib", "libs", "internal", "cmd", "pkg", "test", "tests", "testdata", "spec",
	"docs", "doc", "app", "apps", "scripts", "script", "bin", "build", "dist", "out",
	"public", "static", "assets", "priv", "config", "configs", "conf", "deploy", "deployments",
	"examples", "example", "tools", "tool", "vendor", "node_modules", "packages", "modules",
	"components", "pages", "views", "routes", "api", "server", "client", "web", "www",
	"frontend", "backend", "services", "service", "infra", "terraform", "charts", "helm",
	"migrations", "db", "data", "fixtures", "mocks", "e2e", "cypress", "playwright",
	"include", "includes", "third_party", "external", "ext", "plugins", "plugin", "hooks",
	"utils", "util", "helpers", "common", "shared", "core", "crates", "target", "tmp",
	"var", "etc", "usr", "opt", "home", "users", "root", "mnt", "srv", "workspace", "work",
	"private", "library", "system", "volumes", "github", "gitlab", "vscode", "idea",
	"handlers", "models", "controllers", "middleware", "templates", "layouts", "styles",
	"css", "js", "ts", "img", "images", "fonts", "icons", "resources", "res", "main",
	"java", "kotlin", "python", "go", "rust", "cli", "sdk", "proto", "protos", "schema",
	"schemas", "benchmarks", "bench", "benches", "coverage", "reports", "logs", "log",
	"cache", "storage", "uploads", "downloads", "desktop", "documents", "projects", "repos",
	"code", "dev", "mix", "deps", "_build", "site", "content", "posts", "notebooks",
}

// absRoots are the first directories of absolute paths: "/home/x/a",
// "/tmp/out"; "/api/users" is a route.
var absRoots = []string{
	"home", "users", "tmp", "etc", "usr", "var", "opt", "root", "mnt", "srv", "workspace",
	"work", "private", "library", "system", "volumes", "data", "app", "src", "proc", "dev",
	"bin", "sbin", "lib", "lib64", "nix", "snap", "media", "run", "boot", "code", "repo",
	"repos", "project", "projects", "go", "builds", "github",
}

// gitRefRoots start git references, not paths: "origin/main".
var gitRefRoots = []string{"origin", "upstream", "refs", "heads", "remotes", "tags", "fork"}

// pyModules are top-level Python modules: a dotted lower-case name that
// starts with one is a module path ("numpy.linalg", "os.path").
var pyModules = []string{
	"numpy", "np", "scipy", "pandas", "pd", "torch", "tensorflow", "tf", "keras", "sklearn",
	"matplotlib", "plt", "seaborn", "requests", "flask", "django", "fastapi", "pydantic",
	"sqlalchemy", "pytest", "unittest", "os", "sys", "re", "json", "collections", "typing",
	"itertools", "functools", "asyncio", "logging", "pathlib", "datetime", "math", "random",
	"subprocess", "threading", "multiprocessing", "concurrent", "urllib", "http", "email",
	"xml", "html", "csv", "sqlite3", "io", "abc", "dataclasses", "enum", "contextlib",
	"importlib", "inspect", "shutil", "tempfile", "time", "uuid", "hashlib", "base64",
	"pickle", "copy", "string", "textwrap", "argparse", "socket", "ssl", "struct", "zlib",
	"gzip", "zipfile", "tarfile", "glob", "fnmatch", "operator", "statistics", "decimal",
	"fractions", "heapq", "bisect", "array", "weakref", "types", "warnings", "traceback",
	"pprint", "doctest", "timeit", "cProfile", "ctypes", "boto3", "botocore", "aiohttp",
	"httpx", "attr", "attrs", "click", "typer", "rich", "jinja2", "yaml", "toml", "tomllib",
	"celery", "redis", "psycopg2", "pymongo", "transformers", "datasets", "huggingface_hub",
	"langchain", "openai", "anthropic", "jax", "flax", "optax", "xgboost", "lightgbm",
	"statsmodels", "sympy", "networkx", "nltk", "spacy", "gensim", "cv2", "PIL", "skimage",
	"bs4", "lxml", "scrapy", "selenium", "playwright", "tornado", "starlette", "uvicorn",
	"gunicorn", "werkzeug", "marshmallow", "alembic", "peewee", "tortoise", "mypy", "setuptools",
}

// packageWords after a name make it a package: "the lodash package",
// "the `zod` library", "the requests module".
var packageWords = []string{"package", "packages", "library", "lib", "module", "dependency", "dep", "crate", "gem", "npm"}

// packageTools and their install verbs before names make them packages:
// "npm install express", "pip install requests", "go get golang.org/x/sync".
var packageTools = []string{
	"npm", "pnpm", "yarn", "bun", "pip", "pip3", "pipx", "uv", "poetry", "pdm", "conda",
	"mamba", "go", "cargo", "gem", "bundle", "composer", "dotnet", "nuget", "brew", "apt",
	"apt-get", "apk", "dnf", "yum", "mix", "hex", "opam", "cabal", "stack", "nimble", "deno",
	"npx", "gradle", "mvn",
}

// installVerbs follow a package tool: "npm install", "yarn add", "go get".
var installVerbs = []string{"install", "i", "add", "get", "require", "update", "upgrade", "remove", "uninstall", "rm"}

// notPackageNames are words that stand before a package word without naming
// a package: "the new package", "the standard library", "a Python module".
var notPackageNames = []string{
	"the", "a", "an", "this", "that", "these", "those", "each", "every", "any", "some",
	"new", "old", "same", "other", "another", "whole", "entire", "main", "standard",
	"std", "core", "base", "root", "parent", "child", "sub", "top-level", "internal",
	"external", "third-party", "shared", "common", "first", "second", "third", "last",
	"single", "separate", "own", "your", "our", "their", "its", "his", "her", "my",
	"local", "remote", "test", "testing", "dev", "development", "production", "runtime",
	"python", "go", "golang", "node", "npm", "rust", "java", "ruby", "elixir", "erlang",
	"javascript", "js", "typescript", "ts", "c", "cpp", "php", "dart", "swift", "kotlin",
	"scala", "haskell", "perl", "lua", "r", "julia", "hex", "pip", "pypi", "cargo", "gem",
	"given", "following", "above", "below", "relevant", "required", "missing", "needed",
	"unused", "used", "installed", "existing", "corresponding", "appropriate", "right",
	"correct", "wrong", "public", "private", "exported", "utility", "helper", "wrapper",
	"client", "server", "library", "package", "module", "dependency", "one", "which", "what",
	"ui", "api", "cli", "http", "json", "yaml", "xml", "csv", "sql", "math", "time",
	"small", "large", "big", "tiny", "popular", "official", "recommended", "default",
	"optional", "peer", "direct", "indirect", "transitive", "vendored", "builtin",
	"built-in", "native", "compiled", "generated", "custom", "extra", "additional",
	"only", "no", "not", "full", "entire", "complete", "partial", "whole", "and", "or", "of", "in", "to", "for", "with", "as", "by", "on",
	"is", "are", "was", "were", "be", "has", "have", "it", "i", "we", "you", "they",
}

// codeNouns after a capitalised word make it a symbol: "the Parser class",
// "the Session resource".
var codeNouns = []string{
	"class", "classes", "struct", "structs", "interface", "interfaces", "enum", "enums",
	"trait", "traits", "type", "protocol", "protocols", "behaviour", "behavior",
	"component", "resource", "resources", "schema", "mixin", "decorator", "typeclass",
	"genserver", "liveview", "module",
}

// keywords are code words that are no symbol of a program: literals,
// primitive types and language keywords in backticks ("`true`", "`nil`",
// "`string`").
var keywords = []string{
	"true", "false", "null", "nil", "none", "undefined", "nan", "inf", "self", "this",
	"super", "void", "string", "str", "int", "int8", "int16", "int32", "int64", "uint",
	"uint8", "uint16", "uint32", "uint64", "float", "float32", "float64", "double", "bool",
	"boolean", "byte", "bytes", "rune", "char", "any", "unknown", "never", "object", "number",
	"bigint", "symbol", "error", "list", "dict", "tuple", "set", "map", "array", "slice",
	"chan", "func", "fn", "def", "defp", "defmodule", "class", "struct", "interface", "enum",
	"type", "let", "var", "const", "val", "mut", "pub", "static", "async", "await", "return",
	"yield", "import", "export", "from", "package", "module", "require", "use", "alias",
	"if", "else", "elif", "for", "while", "do", "end", "case", "cond", "with", "when",
	"match", "switch", "default", "break", "continue", "try", "catch", "except", "finally",
	"raise", "throw", "throws", "new", "delete", "typeof", "instanceof", "in", "of", "is",
	"not", "and", "or", "go", "defer", "select", "goto", "lambda", "pass", "ok", "err",
	"todo", "fixme", "xxx", "main", "init", "public", "private", "protected", "readonly",
	"abstract", "final", "override", "virtual", "extends", "implements", "where", "impl",
}

// techNames are the names of languages, tools, platforms and products of
// the trade. They are neither symbols nor entities: an agent names them
// without having read a document that does ("Added JSDoc", "TypeScript
// types", "runs on Kubernetes"). Companies are not here: "Google" is an
// entity.
var techNames = []string{
	// Languages and formats.
	"javascript", "typescript", "coffeescript", "python", "golang", "rust", "java",
	"kotlin", "scala", "groovy", "swift", "objective-c", "ruby", "elixir", "erlang", "haskell",
	"ocaml", "clojure", "clojurescript", "elm", "lua", "perl", "php", "dart", "julia",
	"fortran", "cobol", "pascal", "delphi", "lisp", "scheme", "racket", "prolog", "zig",
	"nim", "crystal", "solidity", "vyper", "wasm", "webassembly", "html", "html5", "css",
	"css3", "sass", "scss", "less", "json", "yaml", "toml", "xml", "csv", "markdown",
	"asciidoc", "restructuredtext", "latex", "bibtex", "graphql", "sql", "nosql", "regex",
	"bash", "zsh", "shell", "powershell", "awk", "heex", "eex", "leex", "jsx", "tsx",
	"jsdoc", "tsdoc", "javadoc", "godoc", "rustdoc", "pydoc", "doxygen", "docstring",
	"docstrings", "protobuf", "grpc", "trpc", "openapi", "swagger", "jsonschema", "mermaid",
	// Runtimes, frameworks and libraries.
	"node", "nodejs", "deno", "bun", "react", "reactjs", "vue", "vuejs", "angular",
	"angularjs", "svelte", "sveltekit", "solidjs", "preact", "nextjs", "nuxt", "nuxtjs",
	"remix", "astro", "gatsby", "ember", "backbone", "jquery", "redux", "mobx", "zustand",
	"tailwind", "tailwindcss", "bootstrap", "postcss", "webpack", "vite", "rollup",
	"esbuild", "parcel", "turbopack", "turborepo", "babel", "swc", "express", "expressjs",
	"nestjs", "fastify", "koa", "hapi", "django", "flask", "fastapi", "starlette", "pydantic",
	"sqlalchemy", "rails", "sinatra", "laravel", "symfony", "spring", "springboot", "phoenix",
	"liveview", "ecto", "ash", "absinthe", "oban", "plug", "cowboy", "otp", "beam",
	"genserver", "dotnet", ".net", "blazor", "xamarin", "maui", "flutter", "electron",
	"tauri", "qt", "gtk", "swiftui", "uikit", "appkit", "jetpack", "compose", "numpy",
	"scipy", "pandas", "polars", "matplotlib", "seaborn", "plotly", "jupyter", "ipython",
	"pytorch", "torch", "tensorflow", "keras", "jax", "sklearn", "scikit-learn", "xgboost",
	"lightgbm", "huggingface", "transformers", "langchain", "llamaindex", "openai",
	"spark", "pyspark", "hadoop", "kafka", "flink", "airflow", "dbt", "beam", "ray",
	"celery", "sidekiq", "resque", "graphene", "apollo", "prisma", "typeorm", "sequelize",
	"mongoose", "knex", "drizzle", "hibernate", "gorm", "sqlx", "diesel", "tokio", "actix",
	"axum", "rocket", "serde", "cobra", "viper", "gin", "echo", "fiber", "chi", "testify",
	"htmx", "alpine", "alpinejs", "lodash", "underscore", "moment", "dayjs", "axios",
	"zod", "yup", "joi", "d3", "threejs", "chartjs", "highlightjs", "prismjs", "xterm",
	// Test, build, lint and package tools.
	"jest", "vitest", "mocha", "chai", "jasmine", "karma", "cypress", "playwright",
	"puppeteer", "selenium", "webdriver", "pytest", "unittest", "nose", "tox", "nox",
	"rspec", "minitest", "junit", "testng", "nunit", "xunit", "exunit", "phpunit", "ctest",
	"gotestsum", "nextest", "credo", "dialyzer", "dialyxir", "sobelow", "eslint", "tslint",
	"jshint", "prettier", "stylelint", "biome", "rubocop", "pylint", "flake8", "black",
	"isort", "ruff", "mypy", "pyright", "pyflakes", "bandit", "golangci-lint", "staticcheck",
	"gofmt", "goimports", "govet", "clippy", "rustfmt", "shellcheck", "hadolint", "npm",
	"npx", "yarn", "pnpm", "pip", "pipx", "pipenv", "poetry", "conda", "anaconda", "uv",
	"cargo", "rustup", "gem", "bundler", "composer", "maven", "gradle", "ant", "sbt",
	"bazel", "buck", "pants", "make", "cmake", "ninja", "meson", "autotools", "mix", "hex",
	"rebar", "rebar3", "nuget", "msbuild", "homebrew", "brew", "apt", "yum", "dnf",
	"pacman", "nix", "nixos", "asdf", "mise", "nvm", "pyenv", "rbenv", "direnv",
	// Platforms, services, editors and systems.
	"git", "github", "gitlab", "bitbucket", "gitea", "mercurial", "svn", "docker",
	"podman", "kubernetes", "k8s", "helm", "kustomize", "terraform", "pulumi", "ansible",
	"chef", "puppet", "vagrant", "packer", "consul", "vault", "nomad", "istio", "envoy",
	"nginx", "apache", "caddy", "traefik", "haproxy", "linux", "unix", "ubuntu", "debian",
	"fedora", "centos", "rhel", "alpine", "arch", "macos", "osx", "ios", "ipados",
	"watchos", "tvos", "android", "windows", "wsl", "freebsd", "openbsd", "chromeos",
	"postgres", "postgresql", "postgis", "mysql", "mariadb", "sqlite", "sqlite3", "mongodb",
	"mongo", "redis", "memcached", "cassandra", "dynamodb", "couchdb", "neo4j",
	"elasticsearch", "opensearch", "clickhouse", "duckdb", "snowflake", "bigquery",
	"redshift", "cockroachdb", "timescaledb", "influxdb", "rabbitmq", "zeromq", "nats",
	"mqtt", "aws", "gcp", "azure", "heroku", "vercel", "netlify", "cloudflare", "fly",
	"render", "railway", "supabase", "firebase", "firestore", "s3", "ec2", "ecs", "eks",
	"lambda", "cloudfront", "cloudwatch", "sqs", "sns", "iam", "gke", "aks", "jenkins",
	"circleci", "travis", "travisci", "buildkite", "teamcity", "argocd", "flux",
	"prometheus", "grafana", "datadog", "sentry", "opentelemetry", "otel", "jaeger",
	"zipkin", "splunk", "kibana", "logstash", "fluentd", "vscode", "vim", "neovim", "emacs",
	"intellij", "pycharm", "webstorm", "goland", "rubymine", "xcode", "eclipse",
	"sublime", "atom", "cursor", "zed", "tmux", "screen", "iterm", "iterm2", "ssh", "curl",
	"wget", "jq", "yq", "grep", "ripgrep", "sed", "sudo", "systemd", "cron", "crontab",
	"chrome", "chromium", "firefox", "safari", "webkit", "gecko", "v8", "jvm", "graalvm",
	"openjdk", "jdk", "jre", "llvm", "gcc", "clang", "msvc", "mingw", "cygwin",
	"slack", "discord", "jira", "confluence", "notion", "trello", "asana", "linear",
	"figma", "storybook", "chromatic", "postman", "insomnia", "swagger-ui", "readme",
	"changelog", "license", "todo", "fixme", "mcp", "claude", "chatgpt", "gpt", "gpt-4",
	"gpt-4o", "gemini", "copilot", "llama", "mistral", "ollama", "vllm", "openrouter",
	"oauth", "oauth2", "openid", "saml", "ldap", "jwt", "websocket", "websockets", "webrtc",
	"webgl", "webgpu", "http", "https", "http2", "tcp", "udp", "tls", "ssl", "dns", "ipv4",
	"ipv6", "utf-8", "utf8", "ascii", "unicode", "base64", "sha256", "sha-256", "md5",
	"bcrypt", "argon2", "pypi", "rubygems", "cocoapods", "crates", "hexdocs", "devops",
	"gitops", "mlops", "saas", "paas", "iaas", "youtube", "linkedin", "paypal", "stackoverflow",
	"wordpress", "shopify", "stripe", "twilio", "sendgrid", "mailchimp", "zapier", "vmware",
	"virtualbox", "qemu", "kvm", "wasmtime", "wasmer", "sqlc", "protoc", "buf", "sqlfluff",
	"beads", "vouch", "happy-dom", "jsdom", "enzyme", "rtl", "msw", "nock", "sinon",
	"bats", "pester", "hurl", "k6", "locust", "gatling", "jmeter", "wrk", "hey", "ab",
	// Tools of coding agents.
	"glob", "webfetch", "websearch", "todowrite", "todoread", "multiedit", "notebookedit",
	"exitplanmode", "killshell", "bashoutput", "askuserquestion", "slashcommand",
	"codex", "aider", "cline", "windsurf", "devin", "openhands",
}

// techAcronyms are acronyms that are no entity: words of the trade, shouted
// words and common abbreviations ("API", "JSON", "TODO", "NOT").
var techAcronyms = []string{
	"api", "apis", "json", "jsonl", "http", "https", "cli", "url", "urls", "uri", "uris",
	"sql", "html", "css", "js", "ts", "ui", "ux", "db", "dbs", "id", "ids", "uuid", "uuids",
	"jwt", "cpu", "cpus", "gpu", "gpus", "tpu", "ram", "rom", "ssd", "hdd", "io", "os",
	"sdk", "sdks", "ide", "ides", "ci", "cd", "pr", "prs", "mr", "mrs", "qa", "tdd", "bdd",
	"dry", "kiss", "yagni", "solid", "crud", "rest", "rpc", "grpc", "tcp", "udp", "ip",
	"dns", "ssh", "tls", "ssl", "cdn", "aws", "gcp", "vm", "vms", "k8s", "yaml", "toml",
	"xml", "csv", "tsv", "pdf", "png", "jpg", "jpeg", "svg", "gif", "ascii", "utf",
	"env", "eof", "eol", "lf", "crlf", "todo", "todos", "fixme", "note", "nb", "wip", "tbd",
	"lgtm", "tl", "dr", "tldr", "faq", "faqs", "ok", "eta", "fyi", "asap", "ai", "ml",
	"llm", "llms", "nlp", "rag", "mcp", "sse", "ssr", "ssg", "spa", "pwa", "dom", "cors",
	"csrf", "xss", "sqli", "orm", "ets", "dets", "otp", "gc", "jit", "aot", "ast", "cst",
	"dsl", "npm", "esm", "cjs", "umd", "wasm", "gui", "tui", "repl", "pid", "ttl", "rps",
	"qps", "tps", "fps", "sla", "slo", "sli", "kpi", "kpis", "roi", "mvp", "poc", "e2e",
	"cron", "head", "get", "post", "put", "patch", "delete", "options", "max", "min",
	"null", "nan", "true", "false", "error", "errors", "warn", "warning", "warnings",
	"info", "debug", "trace", "fatal", "fail", "failed", "failure", "pass", "passed",
	"skip", "skipped", "not", "and", "or", "all", "none", "must", "should", "never",
	"always", "only", "important", "critical", "caution", "tip", "ps", "rfc", "rfcs", "iso",
	"utc", "gmt", "pst", "pdt", "est", "edt", "cet", "cest", "bst", "ist", "am", "pm",
	"bc", "ad", "ce", "bce", "ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii",
	"usd", "eur", "gbp", "jpy", "cny", "inr", "chf", "cad", "aud", "kb", "mb", "gb", "tb",
	"kib", "mib", "gib", "ms", "ns", "hz", "khz", "mhz", "ghz", "new", "yes", "no", "done",
	"ready", "open", "closed", "high", "low", "medium", "p0", "p1", "p2", "p3", "abi",
	"acl", "acls", "ack", "nack", "aes", "rsa", "ecdsa", "hmac", "sha", "md5", "crc",
	"vpn", "lan", "wan", "nat", "vpc", "iam", "rbac", "sso", "mfa", "2fa", "totp", "otp",
	"smtp", "imap", "pop3", "ftp", "sftp", "nfs", "smb", "posix", "ansi", "ieee", "w3c",
	"ecma", "ietf", "owasp", "cve", "cves", "gdpr", "hipaa", "pii", "phi", "soc", "soc2",
	"json5", "hcl", "ini", "cfg", "conf", "log", "logs", "std", "stdin", "stdout",
	"stderr", "tty", "pty", "vt100", "ansi", "cr", "tab", "esc", "ctrl", "alt", "shift",
	"cmd", "fn", "del", "ins", "pgup", "pgdn", "lhs", "rhs", "rw", "ro", "wo", "ux",
	"dx", "sre", "qa", "qe", "pm", "em", "eng", "cto", "ceo", "cfo", "coo", "vp", "hr",
	"it", "us", "we", "he", "me", "my", "an", "as", "at", "be", "by", "do", "go", "if",
	"in", "is", "of", "on", "so", "to", "up", "the", "for", "but", "you", "any", "can",
	"see", "one", "two", "use", "via", "per", "etc", "vs", "re", "fix", "fixed", "add",
	"added", "why", "how", "what", "who", "when", "where", "this", "that", "also",
}

// abbreviations end in a dot that does not end a sentence ("e.g. this", "vs.
// that", "Dr. Smith").
var abbreviations = []string{
	"e.g", "i.e", "etc", "vs", "cf", "viz", "approx", "incl", "esp", "resp", "al", "fig",
	"figs", "nos", "nr", "pp", "ca", "op", "cit", "ibid", "et", "u.s", "u.k", "e.u", "u.n",
	"a.m", "p.m", "ph.d", "b.a", "m.a", "b.sc", "m.sc", "n.b", "p.s",
}

// titles are abbreviations that hold a sentence only when capitalised: "Dr.
// Smith", "Jan. 5"; "10 ms." ends one.
var titles = []string{
	"no", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "sen", "rep", "gov", "gen",
	"col", "capt", "lt", "sgt", "rev", "hon", "mt", "ft", "inc", "ltd", "co", "corp",
	"dept", "univ", "assn", "bros", "est", "vol", "vols", "ed", "eds", "p", "ch", "sec",
	"c", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
	"dec", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
}

// months are the month names and their abbreviations, with their number.
var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
	"december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
	"aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// weekdays are never entities.
var weekdays = []string{
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
}

// dateContext words before a year make it a date: "in 2019", "since 2019",
// "by 2030".
var dateContext = []string{
	"in", "since", "by", "until", "till", "from", "before", "after", "during", "circa",
	"early", "mid", "late", "year", "summer", "winter", "spring", "autumn", "fall",
	"throughout", "around", "as of", "fiscal", "fy", "of", "through",
}

// numberLabels before a number make it a label or a version, no quantity of
// anything: "line 45", "step 2", "Python 3", "version 2", "task 3", "PR 12".
var numberLabels = []string{
	"line", "lines", "ln", "row", "rows", "column", "columns", "col", "cols", "step",
	"steps", "phase", "phases", "stage", "part", "parts", "chapter", "chapters", "section",
	"sections", "page", "pages", "pp", "p", "figure", "fig", "table", "tables", "item",
	"items", "option", "options", "round", "attempt", "iteration", "task", "tasks", "issue",
	"issues", "pr", "prs", "ticket", "tickets", "epic", "milestone", "sprint", "story",
	"version", "versions", "ver", "release", "releases", "v", "rfc", "pep", "iso", "utf",
	"es", "ecmascript", "python", "py", "node", "nodejs", "java", "go", "golang", "ruby",
	"php", "perl", "rust", "ubuntu", "debian", "fedora", "centos", "rhel", "windows", "win",
	"macos", "ios", "android", "jdk", "sdk", "api", "http", "react", "vue", "angular",
	"rails", "django", "elixir", "erlang", "otp", "postgres", "postgresql", "mysql",
	"redis", "gen", "tier", "priority", "case", "cases", "example", "examples", "rule",
	"rules", "test", "scenario", "level", "levels", "grade", "number", "no", "nr", "num",
	"vol", "volume", "book", "act", "scene", "verse", "article", "clause", "paragraph",
	"appendix", "exhibit", "slide", "episode", "season", "week", "day", "lesson", "unit",
	"module", "commit", "build", "run", "job", "pid", "port", "ports", "index", "slot",
	"revision", "rev", "patch", "draft", "variant", "model", "type", "class", "gpt", "llama",
	"claude", "gemini", "phi", "qwen", "bert", "t5", "resnet", "vgg", "top", "ipv",
}

// unitWords are units after a number, with their normal form. Single letters
// and other short ones are units only attached to the number ("5s", "3x"):
// see [attachedOnly].
var unitWords = map[string]string{
	"ns": "ns", "nanosecond": "ns", "nanoseconds": "ns",
	"µs": "us", "μs": "us", "us": "us", "microsecond": "us", "microseconds": "us",
	"ms": "ms", "msec": "ms", "msecs": "ms", "millisecond": "ms", "milliseconds": "ms",
	"s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
	"min": "min", "mins": "min", "minute": "min", "minutes": "min",
	"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
	"d": "day", "day": "day", "days": "day", "week": "week", "weeks": "week", "wk": "week",
	"month": "month", "months": "month", "mo": "month", "year": "year", "years": "year",
	"yr": "year", "yrs": "year",
	"b": "b", "byte": "b", "bytes": "b", "kb": "kb", "kib": "kib", "kilobyte": "kb",
	"kilobytes": "kb", "mb": "mb", "mib": "mib", "megabyte": "mb", "megabytes": "mb",
	"gb": "gb", "gib": "gib", "gigabyte": "gb", "gigabytes": "gb", "tb": "tb", "tib": "tib",
	"terabyte": "tb", "terabytes": "tb", "pb": "pb", "petabyte": "pb", "petabytes": "pb",
	"bit": "bit", "bits": "bit", "kbps": "kbps", "mbps": "mbps", "gbps": "gbps",
	"%": "%", "percent": "%", "pct": "%", "percentage": "%",
	"pp": "pp", "bp": "bp", "bps": "bp",
	"x": "x", "×": "x", "times": "x", "fold": "x",
	"kg": "kg", "kgs": "kg", "kilogram": "kg", "kilograms": "kg", "g": "g", "gram": "g",
	"grams": "g", "mg": "mg", "milligram": "mg", "milligrams": "mg", "lb": "lb", "lbs": "lb",
	"t": "t", "tonne": "t", "tonnes": "t", "ton": "t", "tons": "t",
	"km": "km", "kilometer": "km", "kilometers": "km", "kilometre": "km", "kilometres": "km",
	"m": "m", "meter": "m", "meters": "m", "metre": "m", "metres": "m", "cm": "cm",
	"centimeter": "cm", "centimeters": "cm", "mm": "mm", "millimeter": "mm",
	"millimeters": "mm", "mi": "mi", "mile": "mi", "miles": "mi", "ft": "ft", "foot": "ft",
	"feet": "ft", "in": "in", "inch": "in", "inches": "in",
	"hz": "hz", "khz": "khz", "mhz": "mhz", "ghz": "ghz",
	"w": "w", "watt": "w", "watts": "w", "kw": "kw", "kilowatt": "kw", "kilowatts": "kw",
	"mw": "mw", "megawatt": "mw", "megawatts": "mw", "gw": "gw", "gigawatt": "gw",
	"gigawatts": "gw", "kwh": "kwh", "mwh": "mwh", "gwh": "gwh", "twh": "twh", "v": "v",
	"volt": "v", "volts": "v", "mah": "mah",
	"°c": "°c", "°f": "°f", "℃": "°c", "℉": "°f", "celsius": "°c", "fahrenheit": "°f",
	"rps": "rps", "qps": "qps", "rpm": "rpm", "fps": "fps", "tps": "tps", "px": "px",
	"rem": "rem", "pt": "pt", "dpi": "dpi", "loc": "loc",
	"usd": "usd", "dollar": "usd", "dollars": "usd", "eur": "eur", "euro": "eur",
	"euros": "eur", "gbp": "gbp", "jpy": "jpy", "yen": "jpy", "cny": "cny", "rmb": "cny",
	"yuan": "cny", "inr": "inr", "rupee": "inr", "rupees": "inr", "chf": "chf", "cad": "cad",
	"aud": "aud",
}

// attachedOnly are units read only when attached to the number ("5s", "3x",
// "2d"): written apart they are words ("5 s", "in 3 in").
var attachedOnly = []string{
	"s", "h", "d", "m", "b", "g", "t", "w", "v", "x", "in", "us", "mo", "pp", "bp", "pt",
	"ft", "mi", "min", "sec", "hr", "yr", "wk", "rem", "loc",
	"bit", "fold",
}

// currencyCodes before a number make it an amount: "USD 30", "EUR 20".
var currencyCodes = []string{"usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "chf", "cad", "aud"}

// currencySigns before a number, with their codes: "$1.5M", "€20".
var currencySigns = map[string]string{
	"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr", "₩": "krw", "₽": "rub",
	"₺": "try", "₿": "btc", "us$": "usd", "a$": "aud", "c$": "cad", "hk$": "hkd",
}

// scaleWords after a number multiply it: "2.3 million", "1.5 billion".
var scaleWords = map[string]float64{
	"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "mln": 1e6, "mio": 1e6,
	"billion": 1e9, "bn": 1e9, "bln": 1e9, "trillion": 1e12, "tn": 1e12,
}

// scaleSuffixes attached to a number multiply it: "1.5k", "$2M", "1.2B". They
// are matched with their case: "5m" is five m (minutes or metres), "5M" five
// million.
var scaleSuffixes = map[string]float64{
	"k": 1e3, "K": 1e3, "M": 1e6, "MM": 1e6, "mn": 1e6, "B": 1e9, "bn": 1e9, "Bn": 1e9,
	"T": 1e12, "tn": 1e12,
}

// countWords are spelled-out counts: only read before a noun of a known
// class, as quantities ("all four methods"); alone they are no mention.
var countWords = []string{
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
	"eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
	"eighty", "ninety", "both", "dozen",
}

// spelledNumbers before a scale word make an amount: "two million".
var spelledNumbers = map[string]float64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "a": 1,
}

// nameLinks may join the words of a name: "Bank of England", "Ludwig van
// Beethoven", "Johnson & Johnson".
var nameLinks = []string{"of", "de", "van", "von", "der", "den", "da", "di", "du", "del", "della", "la", "le", "al", "bin", "ibn", "y", "&"}

// nameVerbs may open a sentence and are no part of a name after them:
// "Added Parser support", "Fixed GitHub login". Past forms in -ed and -ing
// forms are found by their ending; these are the others.
var nameVerbs = []string{
	"add", "adds", "fix", "fixes", "update", "updates", "remove", "removes", "make",
	"makes", "made", "run", "runs", "ran", "write", "writes", "wrote", "written", "build",
	"builds", "built", "set", "sets", "put", "get", "gets", "got", "use", "uses", "see",
	"saw", "seen", "find", "found", "read", "keep", "kept", "move", "moves", "create",
	"creates", "delete", "deletes", "rename", "renames", "check", "checks", "test",
	"tests", "implement", "implements", "refactor", "refactors", "merge", "merges",
	"bump", "bumps", "drop", "drops", "split", "splits", "wrap", "wraps", "replace",
	"replaces", "extract", "extracts", "document", "documents", "clean", "cleans",
	"handle", "handles", "ensure", "ensures", "allow", "allows", "support", "supports",
	"introduce", "introduces", "enable", "enables", "disable", "disables", "migrate",
	"migrates", "upgrade", "upgrades", "install", "installs", "configure", "configures",
	"call", "calls", "return", "returns", "show", "shows", "shown", "took", "take", "takes",
	"give", "gives", "gave", "told", "tell", "tells", "said", "say", "says", "went", "go",
	"goes", "came", "come", "comes", "left", "leave", "met", "meet", "won", "win", "wins",
	"lost", "lose", "led", "lead", "leads", "began", "begin", "begins", "became", "become",
	"becomes", "held", "hold", "holds", "born", "died", "wrote", "sold", "bought", "paid",
	"grew", "grow", "grows", "fell", "rose", "chose", "drove", "spoke", "stood", "sent",
	"spent", "built", "felt", "knew", "thought", "brought", "taught", "caught", "fought",
}

// nameStarters are common words that often open a name: at the start of a
// sentence they stay in it ("New York is", "United States law").
var nameStarters = []string{
	"new", "united", "north", "south", "east", "west", "great", "royal", "national",
	"saint", "san", "los", "las", "santa", "old", "central", "general", "international",
	"european", "american", "british", "world", "federal", "supreme", "first", "white",
	"red", "black", "golden", "silicon", "wall", "hong", "sri", "el",
}

// stopWords are function words: they are never a name and never part of one.
// After one at the start of a sentence, what follows is read as in the
// middle of one ("The New York Times" is "New York Times").
var stopWords = []string{
	"a", "an", "the", "and", "or", "but", "nor", "so", "yet", "for", "of", "in", "on",
	"at", "to", "from", "by", "with", "without", "within", "into", "onto", "over",
	"under", "about", "above", "below", "after", "before", "since", "until", "till",
	"during", "through", "throughout", "across", "along", "among", "between", "behind",
	"beyond", "despite", "except", "inside", "outside", "near", "per", "via", "than",
	"as", "like", "unlike", "upon", "towards", "toward", "against", "around", "i", "me",
	"my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his",
	"she", "her", "hers", "it", "its", "they", "them", "their", "theirs", "this", "that",
	"these", "those", "who", "whom", "whose", "which", "what", "where", "when", "why",
	"how", "whether", "if", "then", "else", "there", "here", "all", "any", "both", "each",
	"either", "neither", "every", "few", "many", "much", "more", "most", "some", "such",
	"no", "not", "none", "only", "own", "same", "other", "another", "is", "are", "was",
	"were", "be", "been", "being", "am", "have", "has", "had", "having", "do", "does",
	"did", "doing", "will", "would", "shall", "should", "can", "could", "may", "might",
	"must", "ought", "also", "just", "very", "too", "now", "still", "already", "even",
	"ever", "never", "always", "often", "again", "yes", "ok", "okay", "i'm", "i've", "i'll",
	"i'd", "it's", "that's", "there's", "here's", "let's", "we're", "we've", "we'll",
	"you're", "they're", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
	"weren't", "won't", "can't", "cannot", "couldn't", "shouldn't", "wouldn't", "haven't",
	"hasn't", "hadn't", "let", "please", "thanks", "however", "therefore", "thus",
	"hence", "meanwhile", "otherwise", "instead", "moreover", "furthermore",
	"additionally", "although", "though", "while", "whereas", "because", "unless", "once",
	"finally", "first", "second", "third", "next", "last", "lastly", "overall", "well",
	"sure", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"whatever", "whenever", "wherever", "whoever", "whichever", "anyway", "besides",
	"perhaps", "maybe", "actually", "basically", "essentially", "currently", "recently",
	"previously", "initially", "originally", "eventually", "ultimately", "meanwhile",
	"today", "yesterday", "tomorrow", "tonight", "according", "regarding", "including",
	"following", "given", "unfortunately", "fortunately", "notably", "importantly",
	"interestingly", "similarly", "likewise", "specifically", "generally", "typically",
	"usually", "mostly", "mainly", "primarily", "especially", "particularly", "note",
	"oh", "ah", "hey", "hi", "hello", "dear", "sorry", "great", "good", "perfect",
	"excellent", "nice", "right", "wait", "done", "yeah", "nope", "alright",
}
