// Run inside a sandbox with --model openai: the official SDK, configured
// by nothing but the variables the sandbox sets (OPENAI_BASE_URL, and a
// placeholder OPENAI_API_KEY the wire drops). Prints one JSON line.
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const out = {};
const msg = await client.chat.completions.create({
  model: "gpt-json", messages: [{ role: "user", content: "hi" }],
});
out.message = msg.choices[0].message.content;
out.usage = [msg.usage.prompt_tokens, msg.usage.completion_tokens];
let text = "";
const stream = await client.chat.completions.create({
  model: "gpt-stream", stream: true,
  messages: [{ role: "user", content: "hi" }],
});
for await (const chunk of stream) {
  for (const c of chunk.choices) text += c.delta?.content ?? "";
}
out.stream = text;
try {
  await client.chat.completions.create({
    model: "gpt-error", messages: [{ role: "user", content: "hi" }],
  });
  out.error = 0;
} catch (e) {
  out.error = e.status;
}
console.log(JSON.stringify(out));
