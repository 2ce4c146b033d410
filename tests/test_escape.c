/* Known answers of the escaping functions (src/core/escape.c). */
#include <stdio.h>
#include <string.h>

#include "core/escape.h"
#include "testutil.h"

static int npass, nfail;

static void expect_c(const char *in, const char *want) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_esc_c(&b, in);
  if (b.s && !strcmp(b.s, want))
    npass++;
  else {
    nfail++;
    printf("FAIL esc_c: got %s want %s\n", b.s ? b.s : "(null)", want);
  }
  sdk_sb_free(&b);
}

static void expect_term(const char *in, const char *want) {
  char out[256];
  sdk_esc_term_buf(in, out, sizeof out);
  if (!strcmp(out, want))
    npass++;
  else {
    nfail++;
    printf("FAIL esc_term: got %s want %s\n", out, want);
  }
}

static void expect_ident(const char *s, int want) {
  if (sdk_is_identifier(s, 64) == want)
    npass++;
  else {
    nfail++;
    printf("FAIL identifier '%s': want %d\n", s, want);
  }
}

int main(void) {
  expect_c("ou", "\"ou\"");
  expect_c("a*/b", "\"a\\052\\057b\"");
  expect_c("x\n__attribute__((constructor))", "\"x\\012__attribute__((constructor))\"");
  expect_c("q\"\\?", "\"q\\042\\134\\077\"");
  expect_c("", "\"\"");
  expect_c("\xc3\xa9", "\"\\303\\251\"");
  expect_term("plain text", "plain text");
  expect_term("a\033[31mred", "a\\x1B[31mred");
  expect_term("line\nnext\\", "line\\nnext\\\\");
  expect_term("caf\xc3\xa9", "caf\xc3\xa9");              /* UTF-8 passes */
  expect_term("\xc2\x9b" "2J", "\\xC2\\x9B2J");             /* C1 CSI is escaped */
  expect_term("\xff\xfe", "\\xFF\\xFE");                    /* malformed */
  expect_term("\xe0\x80\x80", "\\xE0\\x80\\x80");           /* overlong */
  expect_term("\x7f", "\\x7F");
  expect_ident("x", 1);
  expect_ident("_a1", 1);
  expect_ident("1a", 0);
  expect_ident("a-b", 0);
  expect_ident("", 0);
  expect_ident("a\n", 0);
  printf("test_escape: %d passed, %d failed\n", npass, nfail);
  return nfail ? 1 : 0;
}
