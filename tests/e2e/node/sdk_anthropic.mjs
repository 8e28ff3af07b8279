// Run inside a sandbox with --model anthropic: the official SDK, configured
// by nothing but the variables the sandbox sets (ANTHROPIC_BASE_URL, and a
// placeholder ANTHROPIC_API_KEY the wire drops). Prints one JSON line.
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({ maxRetries: 0 });
const out = {};
const msg = await client.messages.create({
  model: "claude-json", max_tokens: 16,
  messages: [{ role: "user", content: "hi" }],
});
out.message = msg.content[0].text;
out.usage = [msg.usage.input_tokens, msg.usage.output_tokens];
let text = "";
const stream = client.messages.stream({
  model: "claude-stream", max_tokens: 16,
  messages: [{ role: "user", content: "hi" }],
});
stream.on("text", (t) => { text += t; });
await stream.finalMessage();
out.stream = text;
try {
  await client.messages.create({
    model: "claude-error", max_tokens: 16,
    messages: [{ role: "user", content: "hi" }],
  });
  out.error = 0;
} catch (e) {
  out.error = e.status;
}
console.log(JSON.stringify(out));
