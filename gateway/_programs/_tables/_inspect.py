"""
Option tables of the programs that show binaries, manual pages, text pages and certificates.

nm, objdump, readelf, size and strings (binutils) only read, except that a
``@FILE`` word reads more options from FILE (undeclared) and ``nm --plugin``
loads a shared library (code). ``man`` runs a pager (``-P``, ``$MANPAGER``,
``$PAGER``), a browser (``-H``) and reads configuration that names programs
(``-C``). ``less`` runs ``$LESSOPEN`` and the commands of a lesskey file
(``-k``, ``--lesskey-src``) or of ``+CMD``, and writes a log (``-o``,
``-O``). ``openssl`` commands read ``-in`` and write ``-out``; ``-engine``,
``-provider`` and ``-config`` load code, ``s_client -connect`` reaches the
network, and a pass phrase source ``env:VAR`` or ``file:PATH`` reads it.

The openssl tables are OpenSSL 3.0's own ``-help`` listings, sorted by what
the argument is: a switch, a file read, a file written, or another value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    LISTEN,
    NETWORK,
    READ,
    RUN_CODE,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
    Mode,
    Operands,
    Option,
    OptionSpec,
    ProgramRow,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import NO_OPERANDS, READS, row

__all__ = ["INSPECT_TABLES"]

_READ_TREE: Final = Effect(kind="read", recursive=True)

_NM: Final = row(
    "-a --debug-syms",
    "-A --print-file-name",
    "-B",
    "-C --demangle [=]",
    "--no-demangle",
    "--recurse-limit",
    "--no-recurse-limit",
    "-D --dynamic",
    "-e",
    "-f --format =",
    "-g --extern-only",
    "--ifunc-chars =",
    "-j --just-symbols",
    "-l --line-numbers",
    "-n -v --numeric-sort",
    "-o",
    "-p --no-sort",
    "-P --portability",
    "-r --reverse-sort",
    ("--plugin =", RUN_CODE),
    "-S --print-size",
    "--print-armap",
    "--quiet",
    "--size-sort",
    "--special-syms",
    "--synthetic",
    "-t --radix =",
    "--target =",
    "-u --undefined-only",
    "-U --defined-only",
    "--unicode =",
    "-W --no-weak",
    "--with-symbol-versions",
    "--without-symbol-versions",
    "-X =",
    "-h --help",
    "-V --version",
    "-m",  # llvm-nm: Mach-O style
    "-x",
    response_files=True,
    operands=Operands(rest=role(READ), empty=(Effect(kind="read", value="a.out"),)),
)

# llvm-objdump (macOS) -m is --macho where GNU -m takes an architecture:
# only --architecture is declared.
_OBJDUMP: Final = row(
    "-a --archive-headers",
    "-f --file-headers",
    "-p --private-headers",
    "-P --private =",
    "-h --headers --section-headers",
    "-x --all-headers",
    "-d --disassemble[=]",
    "-D --disassemble-all",
    "-S --source",
    "--source-comment [=]",
    "-s --full-contents",
    "-g --debugging",
    "-e --debugging-tags",
    "-G --stabs",
    "-W --dwarf [=]",
    "-L --process-links",
    "--ctf [=]",
    "--sframe [=]",
    "-t --syms",
    "-T --dynamic-syms",
    "-r --reloc",
    "-R --dynamic-reloc",
    "-v --version",
    "-i --info",
    "-H --help",
    "-b --target =",
    "--architecture =",
    "-j --section =",
    "-M --disassembler-options =",
    "--endian =",
    "--file-start-context",
    ("-I --include =", READ),
    "-l --line-numbers",
    "-F --file-offsets",
    "-C --demangle [=]",
    "--recurse-limit",
    "--no-recurse-limit",
    "-w --wide",
    "-U [=]",
    "--unicode =",
    "-z --disassemble-zeroes",
    "--start-address =",
    "--stop-address =",
    "--no-addresses",
    "--prefix-addresses",
    "--show-raw-insn",
    "--no-show-raw-insn",
    "--insn-width =",
    "--adjust-vma =",
    "--show-all-symbols",
    "--special-syms",
    "--inlines",
    "--prefix =",
    "--prefix-strip =",
    "--dwarf-depth =",
    "--dwarf-start =",
    "--dwarf-check",
    "--ctf-parent =",
    "--visualize-jumps [=]",
    "--disassembler-color =",
    response_files=True,
    operands=Operands(rest=role(READ), empty=(Effect(kind="read", value="a.out"),)),
    environment=frozenset({"DEBUGINFOD_URLS"}),
)

_READELF: Final = row(
    "-a --all",
    "-h --file-header",
    "-l --program-headers --segments",
    "-S --section-headers --sections",
    "-g --section-groups",
    "-t --section-details",
    "-e --headers",
    "-s --syms --symbols",
    "--dyn-syms",
    "--lto-syms",
    "--sym-base =",
    "-C --demangle [=]",
    "--no-demangle",
    "--recurse-limit",
    "--no-recurse-limit",
    "-U [=]",
    "--unicode =",
    "-n --notes",
    "-r --relocs",
    "-u --unwind",
    "-d --dynamic",
    "-V --version-info",
    "-A --arch-specific",
    "-c --archive-index",
    "-D --use-dynamic",
    "-L --lint --enable-checks",
    "-x --hex-dump =",
    "-p --string-dump =",
    "-R --relocated-dump =",
    "-z --decompress",
    "-w --debug-dump [=]",
    "-P --process-links",
    "--dwarf-depth =",
    "--dwarf-start =",
    "--ctf =",
    "--ctf-parent =",
    "--ctf-symbols =",
    "--ctf-strings =",
    "--sframe [=]",
    "-I --histogram",
    "-W --wide",
    "-T --silent-truncation",
    "-H --help",
    "-v --version",
    response_files=True,
    operands=READS,
    environment=frozenset({"DEBUGINFOD_URLS"}),
)

_SIZE: Final = row(
    "-A",
    "-B",
    "-G",
    "--format =",
    "-o",
    "-d",
    "-x",
    "--radix =",
    "-t --totals",
    "-f",
    "--common",
    "--target =",
    "-h -H -? --help",
    "-v -V --version",
    "-m",  # llvm-size
    "-l",
    response_files=True,
    operands=Operands(rest=role(READ), empty=(Effect(kind="read", value="a.out"),)),
)

# man-db, mandoc and man-1.6 (older macOS). -H takes an optional browser in
# man-db and a command in man-1.6; -T an optional device in man-db and a value
# in mandoc: only their fused spellings are declared. A name with a `/` (or
# any name with -l) is a page file, and a page's `.so` requests include any
# file, which no word shows.
_PAGE_FILE: Final = role(READ, Effect(kind="read", fixed=True))
_MAN: Final = row(
    ("-C --config-file =", RUN_CODE, (READ,)),
    "-d --debug",
    "-D --default",
    "--warnings [=]",
    "-f --whatis",
    "-k --apropos",
    "-K --global-apropos",
    "-l --local-file",
    "-w --where --path --location",
    "-W --where-cat --location-cat",
    "-c --catman",
    "-R --recode =",
    "-L --locale =",
    "-m --systems =",
    ("-M --manpath =", _READ_TREE),
    "-S -s --sections =",
    "-e --extension =",
    "-i --ignore-case",
    "-I --match-case",
    "--regex",
    "--wildcard",
    "--names-only",
    "-a --all",
    "-u --update",
    "--no-subpages",
    ("-P --pager =", RUN_SHELL),
    "-r --prompt =",
    "-7 --ascii",
    "-E --encoding =",
    "--no-hyphenation --nh",
    "--no-justification --nj",
    "-p --preprocessor =",
    "-t --troff",
    "-T (=)",
    "--troff-device [=]",
    ("-H (=)", RUN_SHELL),
    ("--html [=]", RUN_PROGRAM),
    ("-X --gxditview [=]", RUN_PROGRAM),
    "-Z --ditroff",
    "-? --help",
    "-h",
    "--usage",
    "-V --version",
    ("-B =", RUN_PROGRAM),  # man-1.6: browser
    "-O =",  # mandoc: output options
    operands=Operands(slashed=_PAGE_FILE),
    modes=(Mode(when=frozenset({"--local-file"}), operands=Operands(rest=_PAGE_FILE)),),
    environment=frozenset(
        {"MANPAGER", "PAGER", "MANOPT", "BROWSER", "MANROFFOPT", "MANROFFSEQ", "MANPL", "LESS"}
        | {"LESSOPEN", "LESSCLOSE"}
    ),
    examples=(
        *allows("man ls", "man 3 printf"),
        *refuses("man ./evil.1", "man -l evil.1", "man ~/.ssh/id_rsa"),
    ),
)

_LESSKEY: Final = RUN_CODE
_PAGER_COMMAND: Final = Effect(kind="execute", action="shell_text", form="pager_command")
_LESS_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-? --help",
    "-a --search-skip-screen",
    "-A --SEARCH-SKIP-SCREEN",
    "-b --buffers =",
    "-B --auto-buffers",
    "-c --clear-screen",
    "-C --CLEAR-SCREEN",
    "-d --dumb",
    "-D --color =",
    "-e --quit-at-eof",
    "-E --QUIT-AT-EOF",
    "-f --force",
    "-F --quit-if-one-screen",
    "-g --hilite-search",
    "-G --HILITE-SEARCH",
    "-h --max-back-scroll =",
    "-i --ignore-case",
    "-I --IGNORE-CASE",
    "-j --jump-target =",
    "-J --status-column",
    ("-k --lesskey-file =", _LESSKEY),
    ("--lesskey-src =", _LESSKEY),
    ("--lesskey-content =", _LESSKEY),
    "-K --quit-on-intr",
    "-L --no-lessopen",
    "-m --long-prompt",
    "-M --LONG-PROMPT",
    "-n --line-numbers",
    "-N --LINE-NUMBERS",
    ("-o --log-file =", WRITE),
    ("-O --LOG-FILE =", WRITE),
    "-p --pattern =",
    "-P --prompt =",
    "-q --quiet --silent",
    "-Q --QUIET --SILENT",
    "-r --raw-control-chars",
    "-R --RAW-CONTROL-CHARS",
    "-s --squeeze-blank-lines",
    "-S --chop-long-lines",
    "-t --tag =",
    ("-T --tag-file =", READ),
    "-u --underline-special",
    "-U --UNDERLINE-SPECIAL",
    "-V --version",
    "-w --hilite-unread",
    "-W --HILITE-UNREAD",
    "-x --tabs =",
    "-X --no-init",
    "-y --max-forw-scroll =",
    "-z --window =",
    '-" --quotes =',
    "-~ --tilde",
    "-# --shift =",
    "--file-size",
    ("--follow-name", None),
    "--incsearch",
    "--line-num-width =",
    "--mouse",
    "--no-keypad",
    "--no-histdups",
    "--rscroll =",
    "--save-marks",
    "--status-col-width =",
    "--use-backslash",
    "--use-color",
    "--wheel-lines =",
    "--header =",
    "--no-number-headers",
    "--no-search-headers",
    "--no-vbell",
    "--redraw-on-quit",
    "--search-options =",
    "--exit-follow-on-close",
    "--proc-backspace",
    "--proc-tab",
    "--proc-return",
    "--show-preproc-errors",
)
_LESS_ENVIRONMENT: Final = frozenset(
    {"LESSOPEN", "LESSCLOSE", "LESS", "LESSKEYIN", "LESSKEY", "LESSKEY_CONTENT", "LESSEDIT"}
    | {"VISUAL", "EDITOR", "SHELL", "LESSSECURE"}
)
# less +CMD runs CMD as less commands when a file opens: `+42`, `+/pattern`
# and `+G` move, `+F` follows forever, `+!cmd` runs shell text.
_LESS: Final = row(
    *_LESS_OPTIONS,
    plus=Option(name="+COMMAND", arity=1, effect=_PAGER_COMMAND),
    operands=READS,
    environment=_LESS_ENVIRONMENT,
    examples=(
        *allows("less setup.py"),
        *refuses("less '+!id' setup.py"),
    ),
)

# util-linux more, and the more that is less (macOS): -p and -n differ
# (util-linux -p clears, less -p PATTERN; util-linux -n NUM, less -n a switch).
_MORE: Final = row(
    *(
        spec
        for spec in _LESS_OPTIONS
        if (spec if isinstance(spec, str) else spec[0]).split()[0] not in ("-p", "-n", "-P")
    ),
    "-l --logical",
    "--no-pause",
    "--print-over",
    "--clean-print",
    "--squeeze",
    "--plain",
    "--lines =",
    numeric=Option(name="-NUM", arity=1),
    plus=Option(name="+COMMAND", arity=1, effect=_PAGER_COMMAND),
    operands=READS,
    environment=_LESS_ENVIRONMENT | {"MORE"},
)

# OpenSSL 3.0's `openssl COMMAND -help`: switches, files read, files written, other values.
_OPENSSL_COMMANDS: Final[Mapping[str, tuple[str, str, str, str]]] = {
    "x509": (
        "-CAcreateserial -alias -badsig -clrext -clrreject -clrtrust -dates -email -enddate "
        "-fingerprint -hash -help -issuer -issuer_hash -issuer_hash_old -modulus -new "
        "-next_serial -nocert -noout -ocsp_uri -ocspid -preserve_dates -pubkey -purpose -req "
        "-serial -startdate -subject -subject_hash -subject_hash_old -text -trustout "
        "-x509toreq",
        "-CA -extfile -force_pubkey -in",
        "-out -writerand",
        "-CAform -CAkey -CAkeyform -CAserial -addreject -addtrust -certopt -checkemail "
        "-checkend -checkhost -checkip -copy_extensions -dateopt -days -engine -ext "
        "-extensions -inform -key -keyform -nameopt -outform -passin -propquery -provider "
        "-provider-path -rand -set_serial -setalias -signkey -sigopt -subj -vfyopt",
    ),
    "req": (
        "-batch -help -modulus -multivalue-rdn -new -newhdr -nodes -noenc -noout -precert "
        "-pubkey -subject -text -utf8 -verbose -verify -x509",
        "-CA -config -in",
        "-keyout -out -writerand",
        "-CAkey -addext -copy_extensions -days -engine -extensions -inform -key -keyform "
        "-keygen_engine -nameopt -newkey -outform -passin -passout -pkeyopt -propquery "
        "-provider -provider-path -rand -reqexts -reqopt -section -set_serial -sigopt -subj "
        "-vfyopt",
    ),
    "genrsa": (
        "-3 -F4 -f4 -help -traditional -verbose",
        "",
        "-out -writerand",
        "-engine -passout -primes -propquery -provider -provider-path -rand",
    ),
    "genpkey": (
        "-genparam -help -quiet -text",
        "-config -paramfile",
        "-out",
        "-algorithm -engine -outform -pass -pkeyopt -propquery -provider -provider-path",
    ),
    "rsa": (
        "-RSAPublicKey_in -RSAPublicKey_out -check -help -modulus -noout -pubin -pubout "
        "-pvk-none -pvk-strong -pvk-weak -text -traditional",
        "",
        "-out",
        "-engine -in -inform -outform -passin -passout -propquery -provider -provider-path",
    ),
    "pkey": (
        "-check -help -noout -pubcheck -pubin -pubout -text -text_pub -traditional",
        "",
        "-out",
        "-ec_conv_form -ec_param_enc -engine -in -inform -outform -passin -passout -propquery "
        "-provider -provider-path",
    ),
    "pkeyutl": (
        "-asn1parse -certin -decrypt -derive -encrypt -engine_impl -help -hexdump -pubin "
        "-rawin -rev -sign -verify -verifyrecover",
        "-config -in -sigfile",
        "-out -writerand",
        "-digest -engine -inkey -kdf -kdflen -keyform -passin -peerform -peerkey -pkeyopt "
        "-pkeyopt_passin -propquery -provider -provider-path -rand",
    ),
    "ec": (
        "-check -help -no_public -noout -param_out -pubin -pubout -text",
        "",
        "-out",
        "-conv_form -engine -in -inform -outform -param_enc -passin -passout -propquery "
        "-provider -provider-path",
    ),
    "ecparam": (
        "-check -check_named -genkey -help -list_curves -no_seed -noout -text",
        "-in",
        "-out -writerand",
        "-conv_form -engine -inform -name -outform -param_enc -propquery -provider "
        "-provider-path -rand",
    ),
    "dgst": (
        "-binary -c -d -debug -engine_impl -fips-fingerprint -help -hex -list -r",
        "-signature",
        "-out -writerand",
        "-engine -hmac -keyform -mac -macopt -passin -propquery -provider -provider-path "
        "-prverify -rand -sign -sigopt -verify -xoflen",
    ),
    "enc": (
        "-A -P -a -base64 -ciphers -d -debug -e -help -list -none -nopad -nosalt -p -pbkdf2 "
        "-salt -v",
        "-in -kfile",
        "-out -writerand",
        "-K -S -bufsize -engine -iter -iv -k -md -pass -propquery -provider -provider-path -rand",
    ),
    "rand": (
        "-base64 -help -hex",
        "",
        "-out -writerand",
        "-engine -propquery -provider -provider-path -rand",
    ),
    "base64": (
        "-A -P -a -base64 -ciphers -d -debug -e -help -list -none -nopad -nosalt -p -pbkdf2 "
        "-salt -v",
        "-in -kfile",
        "-out -writerand",
        "-K -S -bufsize -engine -iter -iv -k -md -pass -propquery -provider -provider-path -rand",
    ),
    "passwd": (
        "-1 -5 -6 -aixmd5 -apr1 -help -noverify -quiet -reverse -stdin -table",
        "-in",
        "-writerand",
        "-propquery -provider -provider-path -rand -salt",
    ),
    "verify": (
        "-allow_proxy_certs -check_ss_sig -crl_check -crl_check_all -crl_download "
        "-explicit_policy -extended_crl -help -ignore_critical -inhibit_any -inhibit_map "
        "-issuer_checks -no-CAfile -no-CApath -no-CAstore -no_alt_chains -no_check_time "
        "-partial_chain -policy_check -policy_print -show_chain -suiteB_128 -suiteB_128_only "
        "-suiteB_192 -trusted_first -use_deltas -verbose -x509_strict",
        "-CAfile -CApath -CRLfile -trusted -untrusted",
        "",
        "-CAstore -attime -auth_level -engine -nameopt -policy -propquery -provider "
        "-provider-path -purpose -verify_depth -verify_email -verify_hostname -verify_ip "
        "-verify_name -vfyopt",
    ),
    "crl": (
        "-badsig -crlnumber -fingerprint -hash -hash_old -help -issuer -lastupdate "
        "-nextupdate -no-CAfile -no-CApath -no-CAstore -noout -text -verify",
        "-CAfile -CApath -gendelta -in -key",
        "-out",
        "-CAstore -dateopt -inform -keyform -nameopt -outform -propquery -provider -provider-path",
    ),
    "pkcs12": (
        "-LMK -cacerts -chain -clcerts -descert -export -help -info -keyex -keysig -legacy "
        "-maciter -no-CAfile -no-CApath -no-CAstore -nocerts -nodes -noenc -noiter -nokeys "
        "-nomac -nomaciter -nomacver -noout -twopass",
        "-CAfile -CApath -certfile -in -untrusted",
        "-out -writerand",
        "-CAstore -CSP -caname -certpbe -engine -inkey -iter -keypbe -macalg -name -passcerts "
        "-passin -passout -password -propquery -provider -provider-path -rand",
    ),
    "pkcs7": (
        "-help -noout -print -print_certs -text",
        "-in",
        "-out",
        "-engine -inform -outform -propquery -provider -provider-path",
    ),
    "s_client": (
        "-4 -6 -allow_no_dhe_kex -allow_proxy_certs -async -brief -bugs -build_chain "
        "-check_ss_sig -client_renegotiation -comp -crl_check -crl_check_all -crl_download "
        "-crlf -ct -dane_ee_no_namechecks -debug -debug_broken_protocol -dtls -dtls1 -dtls1_2 "
        "-enable_pha -explicit_policy -extended_crl -fallback_scsv -help -ign_eof "
        "-ignore_critical -ignore_unexpected_eof -inhibit_any -inhibit_map -issuer_checks "
        "-legacy_renegotiation -legacy_server_connect -msg -nbio -nbio_test -no-CAfile "
        "-no-CApath -no-CAstore -no_alt_chains -no_check_time -no_comp -no_etm -no_ign_eof "
        "-no_legacy_server_connect -no_middlebox -no_renegotiation -no_resumption_on_reneg "
        "-no_ssl3 -no_ticket -no_tls1 -no_tls1_1 -no_tls1_2 -no_tls1_3 -nocommands -noct "
        "-noservername -partial_chain -policy_check -policy_print -prexit -prioritize_chacha "
        "-quiet -reconnect -security_debug -security_debug_verbose -serverpref -showcerts "
        "-srp_lateuser -srp_moregroups -state -status -strict -suiteB_128 -suiteB_128_only "
        "-suiteB_192 -timeout -tls1 -tls1_1 -tls1_2 -tls1_3 -tlsextdebug -trace "
        "-trusted_first -use_deltas -verify_quiet -verify_return_error -x509_strict "
        "-xchain_build",
        "-CAfile -CApath -CRL -cert -cert_chain -chainCAfile -chainCApath -ctlogfile "
        "-early_data -psk_session -requestCAfile -sess_in -verifyCAfile -verifyCApath -xcert "
        "-xchain -xkey",
        "-keylogfile -msgfile -sess_out -writerand",
        "-CAstore -CRLform -alpn -attime -auth_level -bind -certform -chainCAstore -cipher "
        "-ciphersuites -client_sigalgs -connect -curves -dane_tlsa_domain -dane_tlsa_rrdata "
        "-engine -groups -host -key -keyform -keymatexport -keymatexportlen -max_pipelines "
        "-max_protocol -max_send_frag -maxfraglen -min_protocol -mtu -name -named_curve "
        "-nameopt -nextprotoneg -pass -policy -port -propquery -provider -provider-path "
        "-proxy -proxy_pass -proxy_user -psk -psk_identity -purpose -rand -read_buf "
        "-record_padding -serverinfo -servername -sigalgs -split_send_frag -srp_strength "
        "-srppass -srpuser -ssl_client_engine -ssl_config -starttls -unix -use_srtp -verify "
        "-verifyCAstore -verify_depth -verify_email -verify_hostname -verify_ip -verify_name "
        "-xcertform -xkeyform -xmpphost",
    ),
    "asn1parse": (
        "-dump -help -i -noout -strictpem",
        "-in -oid",
        "-out",
        "-dlimit -genconf -genstr -inform -item -length -offset -strparse",
    ),
    "version": (
        "-a -b -c -d -e -f -help -m -o -p -r -v",
        "",
        "",
        "",
    ),
    "ciphers": (
        "-V -help -psk -s -srp -stdname -tls1 -tls1_1 -tls1_2 -tls1_3 -v",
        "",
        "",
        "-ciphersuites -convert -propquery -provider -provider-path",
    ),
    "list": (
        "-1 -asymcipher-algorithms -cipher-algorithms -cipher-commands -commands -decoders "
        "-digest-algorithms -digest-commands -disabled -encoders -engines -help "
        "-kdf-algorithms -kem-algorithms -key-exchange-algorithms -key-managers "
        "-mac-algorithms -objects -providers -public-key-algorithms -public-key-methods "
        "-random-generators -random-instances -signature-algorithms -standard-commands "
        "-store-loaders -verbose",
        "",
        "",
        "-options -propquery -provider -provider-path -select",
    ),
    "prime": (
        "-generate -help -hex -safe",
        "",
        "",
        "-bits -checks -propquery -provider -provider-path",
    ),
    "errstr": (
        "-help",
        "",
        "",
        "",
    ),
    "dhparam": (
        "-2 -3 -5 -check -dsaparam -help -noout -text",
        "-in",
        "-out -writerand",
        "-engine -inform -outform -propquery -provider -provider-path -rand",
    ),
}

_CIPHERS_AND_DIGESTS: Final = (
    "-aes128 -aes192 -aes256 -aes-128-cbc -aes-128-ecb -aes-192-cbc -aes-192-ecb -aes-256-cbc "
    "-aes-256-ecb -aes-128-ctr -aes-256-ctr -aes-128-gcm -aes-256-gcm -aria128 -aria256 "
    "-camellia128 -camellia256 -des -des3 -des-ede3-cbc -chacha20 -blake2b512 -blake2s256 "
    "-md5 -rmd160 -sha1 -sha224 -sha256 -sha384 -sha512 -sha512-224 -sha512-256 -sha3-224 "
    "-sha3-256 -sha3-384 -sha3-512 -shake128 -shake256 -sm3 -sm4-cbc"
)
_CHOOSES_CIPHER: Final = frozenset(
    {"x509", "req", "genrsa", "genpkey", "rsa", "pkey", "ec", "dgst", "enc", "pkcs12"}
)

# A pass phrase source: `pass:TEXT`, `env:VAR` (reads the variable), `file:PATH`
# (reads the file), `fd:N`, `stdin`.
_PASS_SOURCE: Final = Effect(kind="read", form="pass_source")
_OPENSSL_EFFECTS: Final[Mapping[str, Effect]] = {
    "-in": READ,
    "-key": READ,
    "-CAkey": READ,
    "-signkey": READ,
    "-inkey": READ,
    "-peerkey": READ,
    "-sigfile": READ,
    "-prverify": READ,
    "-verify": READ,
    "-sign": READ,
    "-kdfopt": READ,
    "-rand": READ,
    "-CAserial": WRITE,
    "-passin": _PASS_SOURCE,
    "-passout": _PASS_SOURCE,
    "-pass": _PASS_SOURCE,
    "-proxy_pass": _PASS_SOURCE,
    "-kfile": READ,
    "-engine": RUN_CODE,
    "-keygen_engine": RUN_CODE,
    "-provider": RUN_CODE,
    "-provider-path": RUN_CODE,
    "-config": RUN_CODE,
    "-connect": NETWORK,
    "-host": NETWORK,
    "-proxy": NETWORK,
    "-unix": NETWORK,
    "-bind": LISTEN,
    "-accept": LISTEN,
}
_NUMBER_VALUES: Final = frozenset({"s_client"})


def _openssl_command(name: str, groups: tuple[str, str, str, str]) -> ProgramRow:
    """One openssl command's table, from its switches and its three kinds of values."""
    flags, reads, writes, values = (group.split() for group in groups)
    if name in _CHOOSES_CIPHER:
        flags = [*flags, *(flag for flag in _CIPHERS_AND_DIGESTS.split() if flag not in flags)]
    specs: list[OptionSpec] = [(flag, None) for flag in flags]
    specs.extend((f"{spelling} =", _OPENSSL_EFFECTS.get(spelling, READ)) for spelling in reads)
    specs.extend((f"{spelling} =", WRITE) for spelling in writes)
    specs.extend((f"{spelling} =", _OPENSSL_EFFECTS.get(spelling)) for spelling in values)
    if name == "s_client":  # its -verify is a depth, not a file
        specs = [spec for spec in specs if spec[0].split()[0] != "-verify"]
        specs.append(("-verify =", None))
    return row(
        *specs,
        style="words",
        abbreviations=False,
        operands=Operands(rest=role(READ)) if name in ("dgst", "crl", "asn1parse") else NO_OPERANDS,
        environment=frozenset({"OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES"}),
    )


_OPENSSL: Final = ProgramRow(
    subcommands={
        name: _openssl_command(name, groups) for name, groups in _OPENSSL_COMMANDS.items()
    },
    options=row("-help", "-version", style="words").options,
    style="words",
    environment=frozenset({"OPENSSL_CONF"}),
)

INSPECT_TABLES: Final[Mapping[str, ProgramRow]] = {
    "nm": _NM,
    "objdump": _OBJDUMP,
    "readelf": _READELF,
    "size": _SIZE,
    "man": _MAN,
    "less": _LESS,
    "more": _MORE,
    "openssl": _OPENSSL,
}
"""Basename → row, for the programs that show binaries, pages and certificates."""
