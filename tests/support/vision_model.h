// A fake model that looks at the picture it is sent, for `vimgpt doctor`: doctor's frame has a red square on the
// left and a blue one on the right, labelled S and D, and asks for the blue one. The fake answers {"click": "D"}
// only when the frame it received really is drawn so (the image decodes, the colours are where doctor puts them),
// and {"click": "S"} otherwise, so a doctor run passes only when the image reached the model intact.
#pragma once

#include "support/fake_model_server.h"

namespace vimgpt::test {

void answer_like_a_vision_model(FakeModelServer& model);

}  // namespace vimgpt::test
