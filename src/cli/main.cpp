#include "cli/cli.h"

int main(int argc, char** argv) {
  return vimgpt::cli::main(argc, argv);
}
