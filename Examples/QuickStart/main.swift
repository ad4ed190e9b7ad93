// wizard-quickstart: the first program to copy. One import, a form, one call, its answer printed.
// At a terminal: line editing and a review; through a pipe: one answer a line (README.md beside this file).
import WizardTerminal

let name = FieldKey<String>("name"), age = FieldKey<Int>("age")
let form = Form(fields: [
    Field(name, label: "Name", rules: [.required(), .count(atMost: 40)], normalize: Field.trimmingWhiteSpace),
    Field(age, label: "Age", rules: [.required(), .range(13...120)]),
])
let answer = await form.runOrExit { form in "\(form.text(name)), \(form.text(age))" }
printOrExit("Welcome, \(answer)")  // shown visibly; a line that cannot be written exits 74
