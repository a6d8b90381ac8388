/* main.c - the smallest useful libairrt program: parse AIR text, verify it, print
 * it back. Exit 0 when all of it works, 1 with the status message otherwise. */
#include <stdio.h>
#include <string.h>

#include <air/air.h>

static const char k_program[] =
    "func.func @copy(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {\n"
    "  %t = air.launch async () in () args(%a=%arg0, %b=%arg1) : memref<64xf32>, memref<64xf32> {\n"
    "    %s = air.segment @seg async args(%sa=%a, %sb=%b) : memref<64xf32>, memref<64xf32> {\n"
    "      %c1 = arith.constant 1 : index\n"
    "      %h = air.herd @herd async tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%ha=%sa, %hb=%sb) : memref<64xf32>, memref<64xf32> {\n"
    "        %t0, %buf = air.execute -> (memref<64xf32, 2>) {\n"
    "          %alloc = memref.alloc() : memref<64xf32, 2>\n"
    "          air.execute_terminator %alloc : memref<64xf32, 2>\n"
    "        }\n"
    "        %t1 = air.dma_memcpy_nd async [%t0] (%buf[] [] [], %ha[] [] []) : (memref<64xf32, 2>, memref<64xf32>)\n"
    "        %t2 = air.dma_memcpy_nd async [%t1] (%hb[] [] [], %buf[] [] []) : (memref<64xf32>, memref<64xf32, 2>)\n"
    "        %t3 = air.execute [%t2] {\n"
    "          memref.dealloc %buf : memref<64xf32, 2>\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  air.wait_all [%t]\n"
    "  return\n"
    "}\n";

static int fail(air_status_t status) {
  fprintf(stderr, "error: %s\n", air_status_message(status));
  air_status_free(status);
  return 1;
}

int main(void) {
  air_context_t* context = NULL;
  air_status_t status = air_context_create(NULL, NULL, &context);
  if (status) return fail(status);

  air_parse_options_t options = {0};
  options.filename = "copy.mlir";
  air_program_t* program = NULL;
  status = air_program_parse(context, k_program, strlen(k_program), &options, &program);
  if (!status) status = air_program_verify(program, NULL, 0);
  char* text = NULL;
  if (!status) status = air_program_print_to_string(program, 0, &text, NULL);
  if (!status) fputs(text, stdout);

  air_program_free_string(program, text);
  air_program_destroy(program);
  air_context_destroy(context);
  if (status) return fail(status);
  printf("consumer: libairrt %s ok\n", AIR_VERSION_STRING);
  return 0;
}
