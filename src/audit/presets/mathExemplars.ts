/**
 * Four MATH problems with their solutions as the dataset writes them (each ends in a \boxed{} answer).
 * Lines of math500-test-sample.jsonl (test/fixtures/benchmarks/, byte for byte); provenance and licence in README.md
 * beside this file. They are test-split questions: an audit skips a question that is one of its
 * prompt's exemplars.
 */
import type { ExemplarSet } from './exemplarSet';

export const MATH_EXEMPLARS: ExemplarSet = {
  file: "math500-test-sample.jsonl",
  source: "MATH-500 (Lightman et al. 2023, the 500-question subset of the MATH test set of Hendrycks et al. 2021), github.com/openai/prm800k",
  licence: "MIT",
  lines: [
    { line: 3, text: "{\"problem\": \"If $f(x) = \\\\frac{3x-2}{x-2}$, what is the value of $f(-2) +f(-1)+f(0)$? Express your answer as a common fraction.\", \"solution\": \"$f(-2)+f(-1)+f(0)=\\\\frac{3(-2)-2}{-2-2}+\\\\frac{3(-1)-2}{-1-2}+\\\\frac{3(0)-2}{0-2}=\\\\frac{-8}{-4}+\\\\frac{-5}{-3}+\\\\frac{-2}{-2}=2+\\\\frac{5}{3}+1=\\\\boxed{\\\\frac{14}{3}}$\", \"answer\": \"\\\\frac{14}{3}\", \"subject\": \"Algebra\", \"level\": 3}" },
    { line: 7, text: "{\"problem\": \"What is the smallest positive perfect cube that can be written as the sum of three consecutive integers?\", \"solution\": \"The sum of three consecutive integers takes the form $(k-1)+(k)+(k+1)=3k$ and hence is a multiple of 3.  Conversely, if a number $n$ is a multiple of 3, then $n/3-1$, $n/3$, and $n/3+1$ are three consecutive integers that sum to give $n$.  Therefore, a number is a sum of three consecutive integers if and only if it is a multiple of 3.  The smallest positive perfect cube that is a multiple of 3 is $3^3=\\\\boxed{27}$.\", \"answer\": \"27\", \"subject\": \"Number Theory\", \"level\": 3}" },
    { line: 17, text: "{\"problem\": \"Compute: $1-2+3-4+5- \\\\dots +99-100$.\", \"solution\": \"$(1-2)+(3-4)+ \\\\dots +(97-98)+(99-100) = 50(-1) = \\\\boxed{-50}.$\", \"answer\": \"-50\", \"subject\": \"Intermediate Algebra\", \"level\": 1}" },
    { line: 21, text: "{\"problem\": \"Evaluate $(1+2i)6-3i$.\", \"solution\": \"Distribute the factor of 6 and simplify to obtain $(1+2i)6-3i=6+12i-3i=\\\\boxed{6+9i}$.\", \"answer\": \"6+9i\", \"subject\": \"Algebra\", \"level\": 3}" },
  ],
};
