/**
 * Five four-option ARC-Challenge questions with their answer keys.
 * Lines of arc-challenge-test-sample.jsonl (test/fixtures/benchmarks/, byte for byte); provenance and licence in README.md
 * beside this file. They are test-split questions: an audit skips a question that is one of its
 * prompt's exemplars.
 */
import type { ExemplarSet } from './exemplarSet';

export const ARC_EXEMPLARS: ExemplarSet = {
  file: "arc-challenge-test-sample.jsonl",
  source: "ARC-Challenge test split (Clark et al. 2018), allenai.org/data/arc; attribution: Allen Institute for AI",
  licence: "CC BY-SA 4.0",
  lines: [
    { line: 12, text: "{\"id\": \"Mercury_7012740\", \"question\": \"Which statement best describes the effect of the Sun on the oceans?\", \"choices\": {\"text\": [\"The Sun influences the formation of waves.\", \"The Sun creates water particles.\", \"The Sun's rays cause organisms to come to the surface.\", \"The Sun provides minerals.\"], \"label\": [\"A\", \"B\", \"C\", \"D\"]}, \"answerKey\": \"A\"}" },
    { line: 15, text: "{\"id\": \"Mercury_7212993\", \"question\": \"Which of these gases is the most abundant greenhouse gas in the lower atmosphere of Earth?\", \"choices\": {\"text\": [\"ozone\", \"methane\", \"water vapor\", \"carbon dioxide\"], \"label\": [\"A\", \"B\", \"C\", \"D\"]}, \"answerKey\": \"C\"}" },
    { line: 16, text: "{\"id\": \"Mercury_SC_413240\", \"question\": \"At which temperature does water freeze?\", \"choices\": {\"text\": [\"0 degrees Celsius\", \"32 degrees Celsius\", \"100 degrees Celsius\", \"212 degrees Celsius\"], \"label\": [\"A\", \"B\", \"C\", \"D\"]}, \"answerKey\": \"A\"}" },
    { line: 25, text: "{\"id\": \"Mercury_SC_405086\", \"question\": \"Snow, rain, hail, and fog are all forms of\", \"choices\": {\"text\": [\"gas.\", \"water.\", \"wind.\", \"clouds.\"], \"label\": [\"A\", \"B\", \"C\", \"D\"]}, \"answerKey\": \"B\"}" },
    { line: 30, text: "{\"id\": \"Mercury_400687\", \"question\": \"Which statement best explains why a tree branch floats on water?\", \"choices\": {\"text\": [\"Wood is porous.\", \"Wood is buoyant.\", \"Wood is light.\", \"Wood is magnetic.\"], \"label\": [\"A\", \"B\", \"C\", \"D\"]}, \"answerKey\": \"B\"}" },
  ],
};
