/* The kernel's identity over its normalised source (codegen/identity.h):
 * comments, whitespace and #line go, the tokens stay exactly. */
#include <string.h>

#include "codegen/identity.h"
#include "testutil.h"

static void norm(const char *in, const char *want) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_cg_normalise(in, &b);
  const char *got = b.s ? b.s : "";
  TU_CHECK(!strcmp(got, want), "normalise [%s]: got [%s], want [%s]", in, got, want);
  sdk_sb_free(&b);
}

static void same(const char *a, const char *b, int want) {
  char ha[33], hb[33];
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_cg_identity(a, ha, &eb) == SDK_OK && sdk_cg_identity(b, hb, &eb) == SDK_OK, "%s",
           eb.msg);
  TU_CHECK((strcmp(ha, hb) == 0) == want, "[%s] and [%s]: %s expected", a, b,
           want ? "one kernel" : "two kernels");
}

int main(void) {
  /* layout, comments and #line go */
  norm("  int   x = a + b ;  /* c */\n  // d\n", "int x=a+b;");
  norm("#line 12 \"m.sde\"\n(x)\n#line 40 \"sdekit-generated\"\n;", "(x);");
  norm("#  line 3\nx\n# 7 \"f.c\" 2\ny", "x y");
  norm("a\\\nb", "ab"); /* a line splice */
  /* tokens that would join keep one space */
  norm("a + +b; c - -d; q - >f; g < <h; i / *j; k / /l", "a+ +b;c- -d;q- >f;g< <h;i/ *j;k/ /l");
  norm("unsigned   long x; 1e +5; L \"s\"; 1 .5", "unsigned long x;1e +5;L \"s\";1 .5");
  norm("a = -b; f ( x ) ;", "a=-b;f(x);");
  /* literals byte for byte, comment markers inside them too */
  norm("s = \"a  /* b */  // c\"; t = ' '; u = \"\\\"  x\";",
       "s=\"a  /* b */  // c\";t=' ';u=\"\\\"  x\";");
  /* directives: on lines of their own, their newline kept */
  norm("x;\n  #define A 1 /* one */\n  #pragma omp simd\nint y;\n",
       "x;\n#define A 1\n#pragma omp simd\nint y;");
  norm("x;\n  #define A 1 /* a\n b */ + 2\nint y;", "x;\n#define A 1+2\nint y;");
  norm("#ifdef Z\n#endif\n", "#ifdef Z\n#endif\n");
  /* identity: layout no, tokens yes */
  same("int x = 1;\n#line 4 \"a\"\n", "/* banner */ int x=1;", 1);
  same("#define A 1\nint x;", "#define A 1 int x;", 0);
  same("a+ +b", "a++b", 0);
  same("\"a b\"", "\"ab\"", 0);
  return tu_finish("test_identity");
}
